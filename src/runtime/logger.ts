import { format } from "node:util";
import pino, { type Logger } from "pino";

export type { Logger } from "pino";

/** Creates the process logger: JSON lines on stderr (fd 2), level from `LOG_LEVEL` (default `info`). */
export function createLogger(level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ name: "agent-app-server", level }, pino.destination({ fd: 2, sync: true }));
}

/** Sends `console.log/info/debug` to stderr too, so no stray print can corrupt the protocol on stdout. */
export function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(format(...args) + "\n");
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.trace = toStderr;
}
