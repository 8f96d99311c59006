import { ensureHome, resolveHome } from "../config/home.js";
import { loadConfig } from "../config/load.js";
import type { ConfigOverride } from "../config/overrides.js";
import type { Logger } from "../runtime/logger.js";
import { AppServer } from "../server/appServer.js";
import { systemClock } from "../runtime/clock.js";
import { loadDeterministicRuntime } from "../runtime/deterministicState.js";
import { uuidV7Source } from "../runtime/ids.js";
import { startScriptedProvider } from "../testing/scriptedProvider.js";

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 1_500;

/** Options of {@link serveStdio}. */
export interface ServeOptions {
  readonly overrides: readonly ConfigOverride[];
  readonly maxLineBytes?: number;
  readonly includeJsonrpc: boolean;
  readonly deterministic: boolean;
  readonly script: string | null;
  readonly logger: Logger;
}

/**
 * Serves one client on stdin/stdout until stdin ends or a SIGTERM/SIGINT arrives, then drains
 * admitted requests, flushes stdout and exits 0 (within the deadline, whatever is still running).
 */
export async function serveStdio(options: ServeOptions): Promise<void> {
  const home = resolveHome();
  await ensureHome(home);
  const loaded = await loadConfig(home, options.overrides);
  const { warnings } = loaded;
  const scripted = await startScriptedProvider(loaded.config, { file: options.script });
  const config = scripted?.config ?? loaded.config;
  const deterministic = options.deterministic || config.deterministic === true ? await loadDeterministicRuntime(home) : null;
  const clock = deterministic?.clock ?? systemClock;
  const server = new AppServer({
    home,
    config,
    clock,
    ids: deterministic?.ids ?? uuidV7Source(clock),
    configWarnings: warnings,
    logger: options.logger,
    maxLineBytes: options.maxLineBytes,
    includeJsonrpc: options.includeJsonrpc,
  });
  await server.init();
  const connection = server.connect(process.stdin, process.stdout);
  options.logger.info({ home, pid: process.pid }, "serving on stdio");

  let exiting = false;
  const stop = (reason: string) => {
    if (exiting) return;
    exiting = true;
    options.logger.info({ reason }, "shutting down");
    setTimeout(() => {
      options.logger.warn("shutdown deadline passed; exiting with work still in flight");
      process.exit(0);
    }, SHUTDOWN_DEADLINE_MS).unref();
    void server
      .shutdown()
      .then(() => scripted?.mock.close())
      .then(() => deterministic?.save())
      .then(
      () => process.exit(0),
      (error: unknown) => {
        options.logger.error({ err: error }, "shutdown failed");
        process.exit(0);
      },
    );
  };
  connection.onInputClosed(() => stop("stdin closed"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
