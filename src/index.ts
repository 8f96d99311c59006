import { mkdir } from "node:fs/promises";
import type { Config } from "./config/schema.js";
import { createLogger, type Logger } from "./runtime/logger.js";
import { buildAppServer as build } from "./app.js";
import type { AppServer, AppServerOptions } from "./embedding.js";

// Declared through src/embedding.ts's interfaces, not the AppServer class and the composition
// root's options: a consumer's type-check then loads these few declarations, not the server's.
export type { AppServer, AppServerConnection, AppServerOptions } from "./embedding.js";
export type { Config } from "./config/schema.js";

/** Builds a server from its options; call `init()` on it before connecting clients. */
export function buildAppServer(options: AppServerOptions): AppServer {
  return build(options);
}

/** Options of {@link createAppServer}: a home directory and a config (Codex's keys), the rest optional. */
export type CreateAppServerOptions = Omit<AppServerOptions, "config" | "logger"> & {
  readonly config?: Config | undefined;
  /** Logs (default: pino JSON lines on stderr at `LOG_LEVEL`). */
  readonly logger?: Logger | undefined;
};

/**
 * An in-process server, ready to serve clients over any pair of streams with `connect(input,
 * output)`: the same dispatch code as stdio, not a second implementation. Creates the home if
 * needed and loads its thread index; `shutdown()` stops it.
 */
export async function createAppServer(options: CreateAppServerOptions): Promise<AppServer> {
  await mkdir(options.home, { recursive: true });
  const server = build({ ...options, config: options.config ?? {}, logger: options.logger ?? createLogger() });
  await server.init();
  return server;
}
