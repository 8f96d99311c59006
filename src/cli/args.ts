import { parseOverride, type ConfigOverride } from "../config/overrides.js";
import type { Listen, WebSocketAccess } from "./serve.js";
import { UsageError } from "./usageError.js";
import { CODEX_FEATURES } from "../config/codexKeys.js";

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
      strictConfig: boolean;
    }
  | { kind: "print-startup-config"; overrides: ConfigOverride[]; strictConfig: boolean }
  | { kind: "generate-json-schema"; outDir: string }
  | { kind: "generate-ts"; outDir: string }
  | { kind: "replay"; scenarios: string[]; mode: "print" | "check" | "update" }
  | { kind: "demo"; live: boolean }
  | { kind: "record"; out: string; serve: Extract<CliCommand, { kind: "serve" }>; fromSessionLog: string | null; fromThread: string | null }
  | { kind: "acp"; serve: Extract<CliCommand, { kind: "serve" }> }
  | { kind: "version" }
  | { kind: "help" };

export const HELP_TEXT = `agent-app-server: a Codex-compatible app-server for AI coding agents (JSON-RPC over stdio)

Usage (Codex's grammar: global options may come before the subcommand):
  agent-app-server [global options] [app-server] [options]
                                               serve the protocol (default: on stdin/stdout)
  agent-app-server [app-server] generate-json-schema --out DIR
  agent-app-server [app-server] generate-ts --out DIR
                                               TypeScript declarations of the protocol (DIR/protocol.d.ts)
  agent-app-server replay SCENARIO.json... [--check | --update]
                                               play scenarios; print their transcripts, check them against
                                               the .jsonl next to each, or rewrite those
  agent-app-server acp [options]                the Agent Client Protocol over stdio, for editors (Zed, JetBrains, Neovim, Emacs)
  agent-app-server demo [--live]               a short session with a demo client (scripted model; --live: the configured one)
  agent-app-server record --out DIR/NAME [options] [-- options]
                                               serve as app-server does; when the client leaves (or on SIGINT)
                                               write DIR/NAME.scenario.json and its golden DIR/NAME.jsonl
  agent-app-server record --from-session-log FILE --out DIR/NAME
  agent-app-server record --from-thread ID --out DIR/NAME
                                               the same from one connection's --session-log file, or a stored thread
  agent-app-server --version | --help

Options:
  --listen stdio://|ws://IP:PORT|unix://|unix://PATH|off
                               where to listen (default stdio://; ws:// serves WebSocket clients, port 0: any;
                               unix:// WebSocket framing over a Unix socket, 0600, default
                               <home>/app-server-control/app-server-control.sock; off: no transport)
  --stdio                      same as --listen stdio://
  --ws-auth capability-token   require "Authorization: Bearer <token>" from WebSocket clients
  --ws-token-file PATH         the token (or --ws-token-sha256 HEX, its SHA-256)
  --ws-allow-origin ORIGIN     accept WebSocket requests from this browser origin (repeatable; others get 403)
  -c, --config key=value       override a config.toml key (dotted path; value parsed as TOML, else a string)
  --enable FEATURE             same as -c features.FEATURE=true (--disable: =false)
  --strict-config              refuse config.toml keys that neither Codex nor this server knows
  --print-startup-config       load the config and print the start-up configuration as JSON, then exit
  --max-line-bytes N           largest accepted message: a stdio line or a WebSocket message
                               (default 67108864; config max_message_bytes)
  --jsonrpc                    write "jsonrpc":"2.0" on outgoing messages (Codex omits it)
  --deterministic              sequential ids and a stepping clock: the same input gives the same bytes
  --script FILE                serve turns from a scripted model (JSON script; model_provider "scripted")
  --session-log DIR            append every message, both directions, to DIR/<connection>.jsonl (secrets redacted)
  Codex flags with no meaning here (--analytics-default-enabled, --startup-client-info, and Codex's
  interactive-UI flags before app-server such as -m or -s) are accepted and ignored, one log line each.

Environment:
  AGENT_APP_SERVER_HOME        home directory (default ~/.agent-app-server); config in config.toml there
  AGENT_APP_SERVER_LOG_LEVEL   log level on stderr: fatal, error, warn, info (default), debug, trace, silent
  LOG_LEVEL                    the same, when AGENT_APP_SERVER_LOG_LEVEL is unset (warning, verbose, err accepted)
  AGENT_APP_SERVER_LOG_FORMAT  pretty: one readable line per log entry instead of JSON
`;

/** What the command line asks for, and the flags it accepted without acting on them (one log line each). */
export interface ParsedCommandLine {
  readonly command: CliCommand;
  readonly ignored: readonly string[];
}

/** Parses `argv` (without node and the script). */
export function parseArgs(argv: readonly string[]): CliCommand {
  return parseCommandLine(argv).command;
}

/**
 * Parses Codex's grammar, `[global options] [app-server [options] [subcommand ...]]`, plus our own
 * subcommands (replay, demo). With no subcommand we serve: global and app-server options then mix.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const args = [...argv];
  const serve = new ServeFlags();
  let inAppServer = false;
  while (args.length > 0) {
    const arg = args.shift()!;
    if (!arg.startsWith("-")) {
      const sub = subcommand(arg, inAppServer, args, serve);
      if (sub === "app-server") {
        inAppServer = true;
        continue;
      }
      return { command: sub, ignored: serve.ignored };
    }
    const [flag, inline] = splitFlag(arg);
    if (flag === "--version" || flag === "-V") return { command: { kind: "version" }, ignored: [] };
    if (flag === "--help" || flag === "-h") return { command: { kind: "help" }, ignored: [] };
    if (serve.take(flag, inline, args)) continue;
    if (!inAppServer && ignoreTuiFlag(flag, inline, args)) {
      serve.ignored.push(`${flag}: configures Codex's interactive UI, not the app-server (Codex ignores it here too)`);
      continue;
    }
    throw new UsageError(`unknown argument: ${arg}`);
  }
  return { command: serve.command(), ignored: serve.ignored };
}

/** A subcommand word: `app-server` (options follow), or one whose own parser takes the rest. */
function subcommand(word: string, inAppServer: boolean, rest: string[], serve: ServeFlags): CliCommand | "app-server" {
  switch (word) {
    case "app-server":
      if (inAppServer) break;
      return "app-server";
    case "generate-json-schema":
    case "generate-ts":
      if (serve.strictConfig) throw new UsageError(`--strict-config is not supported for ${word}`);
      return { kind: word, outDir: parseOutDir(rest, word, serve.ignored) };
    case "help":
      return { kind: "help" };
    case "replay":
      if (!inAppServer) return parseReplay(rest);
      break;
    case "demo":
      if (!inAppServer) return parseDemo(rest);
      break;
    case "record":
      if (!inAppServer) return parseRecord(rest, serve);
      break;
    case "acp":
      if (!inAppServer) return parseAcp(rest, serve);
      break;
    case "proxy":
      if (inAppServer) throw new UsageError("app-server proxy is not supported: clients connect to `--listen unix://PATH` (or ws://) directly");
      break;
    case "daemon":
      if (inAppServer) throw new UsageError("app-server daemon is not supported: run the server under your own supervisor");
      break;
  }
  throw new UsageError(inAppServer ? `unknown app-server subcommand: ${word}` : `unknown argument: ${word}`);
}

/** The flags of the server itself (`app-server`'s options), gathered as they come. */
class ServeFlags {
  readonly ignored: string[] = [];
  readonly overrides: ConfigOverride[] = [];
  strictConfig = false;
  private printStartupConfig = false;
  private maxLineBytes: number | undefined;
  private includeJsonrpc = false;
  private deterministic = false;
  private script: string | null = null;
  private sessionLog: string | null = null;
  private listen: Listen = { kind: "stdio" };
  private readonly ws: { auth: "none" | "capability-token"; tokenFile: string | null; tokenSha256: string | null; allowedOrigins: string[] } = {
    auth: "none",
    tokenFile: null,
    tokenSha256: null,
    allowedOrigins: [],
  };

  /** Takes `flag` (and its value) if it is a server flag; false if it is not one. */
  take(flag: string, inline: string | undefined, args: string[]): boolean {
    const value = () => inline ?? takeValue(args, flag);
    switch (flag) {
      case "--stdio":
        this.listen = { kind: "stdio" };
        return true;
      case "--listen":
        this.listen = parseListen(value());
        return true;
      case "--ws-auth": {
        const mode = value();
        if (mode !== "capability-token") throw new UsageError(`--ws-auth ${mode} is not supported; use capability-token`);
        this.ws.auth = mode;
        return true;
      }
      case "--ws-token-file":
        this.ws.tokenFile = value();
        return true;
      case "--ws-token-sha256":
        this.ws.tokenSha256 = value();
        return true;
      case "--ws-allow-origin":
        this.ws.allowedOrigins.push(value());
        return true;
      case "-c":
      case "--config":
        this.overrides.push(parseOverrideFlag(value()));
        return true;
      case "--enable":
      case "--disable":
        this.overrides.push(featureOverride(value(), flag === "--enable"));
        return true;
      case "--strict-config":
        this.strictConfig = true;
        return true;
      case "--print-startup-config":
        this.printStartupConfig = true;
        return true;
      case "--max-line-bytes":
        this.maxLineBytes = parsePositiveInt(value(), flag);
        return true;
      case "--jsonrpc":
        this.includeJsonrpc = true;
        return true;
      case "--deterministic":
        this.deterministic = true;
        return true;
      case "--script":
        this.script = value();
        return true;
      case "--session-log":
        this.sessionLog = value();
        return true;
    }
    const meaningless = IGNORED_APP_SERVER_FLAGS.get(flag);
    if (meaningless === undefined) return false;
    if (meaningless.takesValue) value();
    this.ignored.push(`${flag}: ${meaningless.why}`);
    return true;
  }

  /** The command these flags make: serve, or print the start-up config. */
  command(): CliCommand {
    if (this.printStartupConfig) return { kind: "print-startup-config", overrides: this.overrides, strictConfig: this.strictConfig };
    const ws = { ...this.ws };
    if ((ws.tokenFile || ws.tokenSha256) && ws.auth === "none") ws.auth = "capability-token";
    // `--script` means "turns go to this script", over whatever provider config.toml names; an
    // explicit `-c model_provider=…` (applied after it) still wins.
    const overrides = this.script === null ? this.overrides : [{ path: ["model_provider"], value: "scripted", source: "--script" }, ...this.overrides];
    return {
      kind: "serve",
      listen: this.listen,
      ws,
      overrides,
      maxLineBytes: this.maxLineBytes,
      includeJsonrpc: this.includeJsonrpc,
      deterministic: this.deterministic,
      script: this.script,
      sessionLog: this.sessionLog,
      strictConfig: this.strictConfig,
    };
  }
}

/** Codex app-server flags that have no meaning here: accepted, logged, ignored. */
const IGNORED_APP_SERVER_FLAGS: ReadonlyMap<string, { readonly takesValue: boolean; readonly why: string }> = new Map([
  ["--analytics-default-enabled", { takesValue: false, why: "this server collects no analytics" }],
  ["--startup-sign-out", { takesValue: false, why: "there is no managed ChatGPT sign-in here" }],
  ["--startup-client-info", { takesValue: true, why: "there is no ChatGPT configuration or auth service to identify to" }],
  ["--cloud-skills-snapshot", { takesValue: true, why: "there are no cloud skills here" }],
  ["--code-mode-host", { takesValue: true, why: "there is no code-mode host here" }],
  ["--ws-shared-secret-file", { takesValue: true, why: "signed JWT WebSocket auth is not supported (use --ws-auth capability-token)" }],
  ["--ws-issuer", { takesValue: true, why: "signed JWT WebSocket auth is not supported (use --ws-auth capability-token)" }],
  ["--ws-audience", { takesValue: true, why: "signed JWT WebSocket auth is not supported (use --ws-auth capability-token)" }],
  ["--ws-max-clock-skew-seconds", { takesValue: true, why: "signed JWT WebSocket auth is not supported (use --ws-auth capability-token)" }],
]);

/** Codex's top-level flags for its interactive UI: `codex -m o3 app-server` runs the app-server unchanged. */
const TUI_FLAGS_WITH_VALUE = new Set(["--remote", "--remote-auth-token-env", "-i", "--image", "-m", "--model", "--local-provider", "-p", "--profile", "-s", "--sandbox", "-C", "--cd", "--add-dir", "-a", "--ask-for-approval"]);
const TUI_SWITCHES = new Set(["--oss", "--approve-for-me", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--worktree", "--search", "--no-alt-screen", "--no-daemon"]);

function ignoreTuiFlag(flag: string, inline: string | undefined, args: string[]): boolean {
  if (TUI_SWITCHES.has(flag)) return true;
  if (!TUI_FLAGS_WITH_VALUE.has(flag)) return false;
  if (inline === undefined) takeValue(args, flag);
  return true;
}

/** `--enable X` / `--disable X`: `-c features.X=true|false`, for any feature Codex or we know. */
function featureOverride(name: string, enabled: boolean): ConfigOverride {
  if (!CODEX_FEATURES.has(name)) throw new UsageError(`unknown feature flag: ${name}`);
  return { path: ["features", name], value: enabled, source: `${enabled ? "--enable" : "--disable"} ${name}` };
}

/** generate-* options: `--out DIR`; `-c`/`--enable`/`--disable` and `--prettier` change nothing in what is written. */
function parseOutDir(args: string[], command: string, ignored: string[]): string {
  let outDir: string | undefined;
  while (args.length > 0) {
    const [flag, inline] = splitFlag(args.shift()!);
    if (flag === "--out" || flag === "-o") outDir = inline ?? takeValue(args, flag);
    else if (flag === "--experimental") ignored.push("--experimental: the output always has the experimental methods and fields this server serves");
    else if (["-c", "--config", "--enable", "--disable", "-p", "--prettier"].includes(flag)) {
      if (inline === undefined) takeValue(args, flag);
      ignored.push(`${flag}: does not change the ${command} output`);
    } else throw new UsageError(`unknown argument to ${command}: ${flag}`);
  }
  if (!outDir) throw new UsageError(`${command} needs --out DIR`);
  return outDir;
}

function parseListen(target: string): Listen {
  if (target === "stdio://" || target === "stdio") return { kind: "stdio" };
  if (target === "off") return { kind: "off" };
  if (target === "unix://") return { kind: "unix", path: null };
  if (target.startsWith("unix://")) return { kind: "unix", path: target.slice("unix://".length) };
  const match = /^ws:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(target);
  if (!match) throw new UsageError(`--listen ${target} is not supported; use stdio://, unix://, unix://PATH, ws://IP:PORT or off`);
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

/** `acp` and the server's own options: the Agent Client Protocol, over stdio only (editors spawn their agents). */
function parseAcp(args: string[], serve: ServeFlags): CliCommand {
  while (args.length > 0) {
    const arg = args.shift()!;
    const [flag, inline] = splitFlag(arg);
    if (!arg.startsWith("-") || !serve.take(flag, inline, args)) throw new UsageError(`unknown argument to acp: ${arg}`);
  }
  const command = serve.command();
  if (command.kind !== "serve") throw new UsageError("--print-startup-config is not supported for acp");
  if (command.listen.kind !== "stdio") throw new UsageError("acp speaks over stdio only: an editor starts it as its agent");
  return { kind: "acp", serve: command };
}

/** `record --out DIR/NAME` and the server's own options (those given before `record` count too). */
function parseRecord(args: string[], serve: ServeFlags): CliCommand {
  let out: string | null = null;
  let fromSessionLog: string | null = null;
  let fromThread: string | null = null;
  // After `--`, only the server's options: `record --out x -- -c model="o3"`.
  let serverOnly = false;
  while (args.length > 0) {
    const arg = args.shift()!;
    const [flag, inline] = splitFlag(arg);
    if (arg === "--" && !serverOnly) serverOnly = true;
    else if (flag === "--out" && !serverOnly) out = inline ?? takeValue(args, flag);
    else if (flag === "--from-session-log" && !serverOnly) fromSessionLog = inline ?? takeValue(args, flag);
    else if (flag === "--from-thread" && !serverOnly) fromThread = inline ?? takeValue(args, flag);
    else if (!arg.startsWith("-") || !serve.take(flag, inline, args)) throw new UsageError(`unknown argument to record: ${arg}`);
  }
  if (out === null) throw new UsageError("record needs --out DIR/NAME (it writes DIR/NAME.scenario.json and DIR/NAME.jsonl)");
  const command = serve.command();
  if (command.kind !== "serve") throw new UsageError("--print-startup-config is not supported for record");
  if (fromSessionLog !== null && fromThread !== null) throw new UsageError("record takes --from-session-log or --from-thread, not both");
  return { kind: "record", out, serve: command, fromSessionLog, fromThread };
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
