import { readFile } from "node:fs/promises";
import path from "node:path";
import { describeErrno, StartupError } from "../runtime/systemErrors.js";

/**
 * The JSON in `file`, a file the server was started with (a model script, recorded MCP servers):
 * one that cannot be read or parsed is a start-up error naming it (`what`), with `hint` after an
 * unreadable one.
 */
export async function readStartupJson(file: string, what: string, hint = ""): Promise<unknown> {
  const text = await readFile(path.resolve(file), "utf8").catch((error: Error) => {
    throw new StartupError(`cannot read ${what} ${file}: ${describeErrno(error)}${hint}`);
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StartupError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}
