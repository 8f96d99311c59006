import { writeSync } from "node:fs";
import { format } from "node:util";
import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

// Spellings other tools use, inherited from an editor's environment: they must not stop the server.
const ALIASES: Readonly<Record<string, string>> = {
  warning: "warn",
  err: "error",
  critical: "fatal",
  crit: "fatal",
  information: "info",
  verbose: "debug",
  all: "trace",
  off: "silent",
  none: "silent",
  quiet: "silent",
};

/** A log level and, when the one asked for was not understood, what to warn about. */
export interface LogLevelChoice {
  readonly level: string;
  readonly warning: string | null;
}

/**
 * The level from `AGENT_APP_SERVER_LOG_LEVEL` (ours wins), else `LOG_LEVEL`, else `info`. Case and
 * common spellings (`warning`, `verbose`, `err`) are accepted; anything else falls back to `info`.
 */
export function resolveLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevelChoice {
  const [name, raw] = env.AGENT_APP_SERVER_LOG_LEVEL ? ["AGENT_APP_SERVER_LOG_LEVEL", env.AGENT_APP_SERVER_LOG_LEVEL] : ["LOG_LEVEL", env.LOG_LEVEL];
  if (!raw) return { level: "info", warning: null };
  const wanted = raw.trim().toLowerCase();
  const level = ALIASES[wanted] ?? wanted;
  if (LEVELS.has(level)) return { level, warning: null };
  return { level: "info", warning: `${name}=${JSON.stringify(raw)} is not a log level (use fatal, error, warn, info, debug, trace or silent); logging at info` };
}

/**
 * Creates the process logger on stderr (fd 2): JSON lines, or with
 * `AGENT_APP_SERVER_LOG_FORMAT=pretty` one readable line per entry (for a server run by hand).
 */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  const { level, warning } = resolveLogLevel(env);
  const destination = env.AGENT_APP_SERVER_LOG_FORMAT === "pretty" ? prettyStderr() : pino.destination({ fd: 2, sync: true });
  const logger = pino({ name: "agent-app-server", level }, destination);
  if (warning) logger.warn(warning);
  return logger;
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
// pino's own fields, shown by the line itself rather than repeated as key=value.
const HIDDEN = new Set(["level", "time", "pid", "hostname", "name", "msg"]);

/** `12:04:05.123 WARN  message key=value …`, written synchronously to stderr. */
function prettyStderr(): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        writeSync(2, line);
        return;
      }
      const time = new Date(Number(entry.time)).toISOString().slice(11, 23);
      const level = (LEVEL_NAMES[Number(entry.level)] ?? String(entry.level)).padEnd(5);
      const fields = Object.entries(entry)
        .filter(([key]) => !HIDDEN.has(key))
        .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
      writeSync(2, `${time} ${level} ${String(entry.msg ?? "")}${fields.length > 0 ? " " + fields.join(" ") : ""}\n`);
    },
  };
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
