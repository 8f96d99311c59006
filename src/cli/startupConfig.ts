/**
 * `app-server --print-startup-config`: loads the configuration as serving would (with `-c`,
 * `--enable`/`--disable` and `--strict-config`) and prints what a client could ask at start-up, as
 * one JSON line on stdout; a config that does not load prints Codex's error shape and exits 1.
 */
import { resolveHome } from "../config/home.js";
import { ConfigError, loadConfig } from "../config/load.js";
import type { ConfigOverride } from "../config/overrides.js";
import { CODEX_PROTOCOL_VERSION } from "../runtime/version.js";

/** Prints the start-up config (or why it is unavailable); resolves with the exit code. */
export async function printStartupConfig(overrides: readonly ConfigOverride[], strict: boolean): Promise<number> {
  try {
    await loadConfig(resolveHome(), overrides, { strict });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const message = `failed to load configuration: ${error.message}`;
    process.stdout.write(JSON.stringify({ error: { code: -32600, message, data: { reason: "configLoad" } } }) + "\n");
    process.stderr.write("agent-app-server: startup configuration unavailable\n");
    return 1;
  }
  // No administrator requirements are enforced here (as configRequirements/read answers).
  process.stdout.write(JSON.stringify({ appServerVersion: CODEX_PROTOCOL_VERSION, configRequirements: { requirements: null } }) + "\n");
  return 0;
}
