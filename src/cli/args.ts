import { parseOverride, type ConfigOverride } from "../config/overrides.js";
import type { Listen, WebSocketAccess } from "./serve.js";
import { UsageError } from "./usageError.js";

/** What the command line asks for. */
export type CliCommand =
  | {
      kind: "serve";
      listen: Listen;
      ws: WebSocketAccess;
      overrides: ConfigOverride[];
      maxLineBytes?: number;
      includeJsonrpc: boolean;
      deterministic: boolean;
      script: string | null;
      sessionLog: string | null;
    }
  | { kind: "generate-json-schema"; outDir: string }
  | { kind: "generate-ts"; outDir: string }
  | { kind: "replay"; scenarios: string[]; mode: "print" | "check" | "update" }
  | { kind: "demo"; live: boolean }
  | { kind: "version" }
  | { kind: "help" };

export const HELP_TEXT = `agent-app-server: a Codex-compatible app-server for AI coding agents (JSON-RPC over stdio)

Usage:
  agent-app-server [app-server] [options]      serve the protocol on stdin/stdout
  agent-app-server generate-json-schema --out DIR
  agent-app-server generate-ts --out DIR       TypeScript declarations of the protocol (DIR/protocol.d.ts)
  agent-app-server replay SCENARIO.json... [--check | --update]
                                               play scenarios; print their transcripts, check them against
                                               the .jsonl next to each, or rewrite those
  agent-app-server demo [--live]               a short session with a demo client (scripted model; --live: the configured one)
  agent-app-server --version | --help

Options:
  --listen stdio://|ws://IP:PORT
                               where to listen (default stdio://; ws:// serves WebSocket clients, port 0: any)
  --stdio                      same as --listen stdio://
  --ws-auth capability-token   require "Authorization: Bearer <token>" from WebSocket clients
  --ws-token-file PATH         the token (or --ws-token-sha256 HEX, its SHA-256)
  --ws-allow-origin ORIGIN     accept WebSocket requests from this browser origin (repeatable; others get 403)
  -c, --config key=value       override a config.toml key (dotted path; value parsed as TOML, else a string)
  --max-line-bytes N           longest accepted input line (default 67108864)
  --jsonrpc                    write "jsonrpc":"2.0" on outgoing messages (Codex omits it)
  --deterministic              sequential ids and a stepping clock: the same input gives the same bytes
  --script FILE                serve turns from a scripted model (JSON script; model_provider "scripted")
  --session-log DIR            append every message, both directions, to DIR/<connection>.jsonl (secrets redacted)

Environment:
  AGENT_APP_SERVER_HOME        home directory (default ~/.agent-app-server); config in config.toml there
  LOG_LEVEL                    pino level for the log on stderr (default info)
`;

/** Parses `argv` (without node and the script). */
export function parseArgs(argv: readonly string[]): CliCommand {
  const args = [...argv];
  if (args[0] === "generate-json-schema") return { kind: "generate-json-schema", outDir: parseOutDir(args.slice(1), "generate-json-schema") };
  if (args[0] === "generate-ts") return { kind: "generate-ts", outDir: parseOutDir(args.slice(1), "generate-ts") };
  if (args[0] === "replay") return parseReplay(args.slice(1));
  if (args[0] === "demo") return parseDemo(args.slice(1));
  if (args[0] === "app-server") args.shift();
  const overrides: ConfigOverride[] = [];
  let maxLineBytes: number | undefined;
  let includeJsonrpc = false;
  let deterministic = false;
  let script: string | null = null;
  let sessionLog: string | null = null;
  let listen: Listen = { kind: "stdio" };
  const ws: { auth: "none" | "capability-token"; tokenFile: string | null; tokenSha256: string | null; allowedOrigins: string[] } = {
    auth: "none",
    tokenFile: null,
    tokenSha256: null,
    allowedOrigins: [],
  };
  while (args.length > 0) {
    const arg = args.shift()!;
    const [flag, inline] = splitFlag(arg);
    switch (flag) {
      case "--version":
      case "-V":
        return { kind: "version" };
      case "--help":
      case "-h":
        return { kind: "help" };
      case "--stdio":
        break;
      case "--listen":
        listen = parseListen(inline ?? takeValue(args, flag));
        break;
      case "--ws-auth": {
        const mode = inline ?? takeValue(args, flag);
        if (mode !== "capability-token") throw new UsageError(`--ws-auth ${mode} is not supported; use capability-token`);
        ws.auth = mode;
        break;
      }
      case "--ws-token-file":
        ws.tokenFile = inline ?? takeValue(args, flag);
        break;
      case "--ws-token-sha256":
        ws.tokenSha256 = inline ?? takeValue(args, flag);
        break;
      case "--ws-allow-origin":
        ws.allowedOrigins.push(inline ?? takeValue(args, flag));
        break;
      case "-c":
      case "--config":
        overrides.push(parseOverrideFlag(inline ?? takeValue(args, flag)));
        break;
      case "--max-line-bytes":
        maxLineBytes = parsePositiveInt(inline ?? takeValue(args, flag), flag);
        break;
      case "--jsonrpc":
        includeJsonrpc = true;
        break;
      case "--deterministic":
        deterministic = true;
        break;
      case "--script":
        script = inline ?? takeValue(args, flag);
        break;
      case "--session-log":
        sessionLog = inline ?? takeValue(args, flag);
        break;
      default:
        throw new UsageError(`unknown argument: ${arg}`);
    }
  }
  if ((ws.tokenFile || ws.tokenSha256) && ws.auth === "none") ws.auth = "capability-token";
  return { kind: "serve", listen, ws, overrides, maxLineBytes, includeJsonrpc, deterministic, script, sessionLog };
}

function parseOutDir(args: string[], command: string): string {
  let outDir: string | undefined;
  while (args.length > 0) {
    const [flag, inline] = splitFlag(args.shift()!);
    if (flag === "--out" || flag === "-o") outDir = inline ?? takeValue(args, flag);
    else throw new UsageError(`unknown argument to ${command}: ${flag}`);
  }
  if (!outDir) throw new UsageError(`${command} needs --out DIR`);
  return outDir;
}

function parseListen(target: string): Listen {
  if (target === "stdio://" || target === "stdio") return { kind: "stdio" };
  const match = /^ws:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(target);
  if (!match) throw new UsageError(`--listen ${target} is not supported; use stdio:// or ws://IP:PORT`);
  const port = Number(match[2]);
  if (port > 65535) throw new UsageError(`--listen ${target}: port out of range`);
  return { kind: "ws", host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

function parseReplay(args: string[]): CliCommand {
  const scenarios: string[] = [];
  let mode: "print" | "check" | "update" = "print";
  for (const arg of args) {
    if (arg === "--check") mode = "check";
    else if (arg === "--update") mode = "update";
    else if (arg.startsWith("-")) throw new UsageError(`unknown argument to replay: ${arg}`);
    else scenarios.push(arg);
  }
  if (scenarios.length === 0) throw new UsageError("replay needs at least one scenario file");
  return { kind: "replay", scenarios, mode };
}

function parseDemo(args: string[]): CliCommand {
  for (const arg of args) if (arg !== "--live") throw new UsageError(`unknown argument to demo: ${arg}`);
  return { kind: "demo", live: args.includes("--live") };
}

function splitFlag(arg: string): [string, string | undefined] {
  if (!arg.startsWith("--")) return [arg, undefined];
  const eq = arg.indexOf("=");
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

function takeValue(args: string[], flag: string): string {
  const value = args.shift();
  if (value === undefined) throw new UsageError(`${flag} needs a value`);
  return value;
}

function parseOverrideFlag(text: string): ConfigOverride {
  try {
    return parseOverride(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parsePositiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new UsageError(`${flag} needs a positive integer, got ${text}`);
  return value;
}
