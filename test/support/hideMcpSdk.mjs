// `node --import` this file to run the server as an install without the optional MCP SDK: every
// `@modelcontextprotocol/sdk` import fails as Node fails it when no node_modules holds the package.
import { register } from "node:module";

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === "@modelcontextprotocol/sdk" || specifier.startsWith("@modelcontextprotocol/sdk/")) {
    const error = new Error("Cannot find package '@modelcontextprotocol/sdk' imported from " + context.parentURL);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
