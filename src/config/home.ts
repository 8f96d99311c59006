import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describeErrno, StartupError } from "../runtime/systemErrors.js";

/** The server's home: `$AGENT_APP_SERVER_HOME`, else `~/.agent-app-server`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AGENT_APP_SERVER_HOME;
  return path.resolve(fromEnv && fromEnv.length > 0 ? fromEnv : path.join(os.homedir(), ".agent-app-server"));
}

/** Creates the home directory if it does not exist yet; a home that cannot be one is a {@link StartupError}. */
export async function ensureHome(home: string): Promise<void> {
  try {
    await mkdir(home, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what = code === "EEXIST" || code === "ENOTDIR" ? "a file is there, not a directory" : `${describeErrno(error)} (${code ?? "error"})`;
    throw new StartupError(`cannot use the home ${home}: ${what}; set AGENT_APP_SERVER_HOME to a directory this user can write`);
  }
}
