import { mkdir } from "node:fs/promises";
import type { Config } from "./config/schema.js";
import { createLogger, type Logger } from "./runtime/logger.js";
import { buildAppServer, type AppServerOptions } from "./app.js";
import type { AppServer } from "./server/appServer.js";

export { buildAppServer, type AppServerOptions } from "./app.js";
export type { AppServer } from "./server/appServer.js";
export type { Config } from "./config/schema.js";

/** Options of {@link createAppServer}: a home directory and a config (Codex's keys), the rest optional. */
export type CreateAppServerOptions = Omit<AppServerOptions, "config" | "logger"> & {
  readonly config?: Config;
  /** Logs (default: pino JSON lines on stderr at `LOG_LEVEL`). */
  readonly logger?: Logger;
};

/**
 * An in-process server, ready to serve clients over any pair of streams with `connect(input,
 * output)`: the same dispatch code as stdio, not a second implementation. Creates the home if
 * needed and loads its thread index; `shutdown()` stops it.
 */
export async function createAppServer(options: CreateAppServerOptions): Promise<AppServer> {
  await mkdir(options.home, { recursive: true });
  const server = buildAppServer({ ...options, config: options.config ?? {}, logger: options.logger ?? createLogger() });
  await server.init();
  return server;
}
