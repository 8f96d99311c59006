/**
 * The MCP SDK (`@modelcontextprotocol/sdk`) is an optional peer dependency: it brings an HTTP
 * server stack (express, hono, …) that a client never runs, so an install without MCP servers goes
 * without it. It is loaded on first use only, through {@link loadMcpSdk}, which turns its absence
 * into one clear sentence.
 */

/** The package, as users install it. */
export const MCP_SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** What a user reads when MCP servers are configured (or a login is asked for) without the SDK. */
export const MCP_SDK_MISSING = `MCP servers need ${MCP_SDK_PACKAGE}: npm install ${MCP_SDK_PACKAGE}`;

/**
 * Runs `load` (the SDK's `import()`s); if the SDK is not installed, rejects with
 * `missing(MCP_SDK_MISSING)` instead. Any other failure (a dependency of the SDK missing, a broken
 * install) is rethrown as it is, so it is not mistaken for an SDK that was never installed.
 */
export async function loadMcpSdk<T>(load: () => Promise<T>, missing: (message: string) => Error): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isSdkMissing(error)) throw error;
    const replacement = missing(MCP_SDK_MISSING);
    replacement.cause = error;
    throw replacement;
  }
}

/** Node's error for `import("@modelcontextprotocol/sdk/…")` when no node_modules on the way up holds the package. */
export function isSdkMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // "Cannot find package '@modelcontextprotocol/sdk' imported from …": the package itself, not one of its dependencies.
  return code === "ERR_MODULE_NOT_FOUND" && typeof message === "string" && message.includes(`'${MCP_SDK_PACKAGE}'`);
}
