import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The server's home: `$AGENT_APP_SERVER_HOME`, else `~/.agent-app-server`. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AGENT_APP_SERVER_HOME;
  return path.resolve(fromEnv && fromEnv.length > 0 ? fromEnv : path.join(os.homedir(), ".agent-app-server"));
}

/** Creates the home directory if it does not exist yet. */
export async function ensureHome(home: string): Promise<void> {
  await mkdir(home, { recursive: true });
}
