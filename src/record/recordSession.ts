import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServeOptions } from "../cli/serve.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../runtime/logger.js";
import { isSecretEnvName } from "../agent/index.js";
import { logSecrets } from "../server/logSecrets.js";
import { redactText } from "../server/secretPatterns.js";
import type { MockResponseInput } from "../testing/mockScript.js";
import type { ScenarioNormalization } from "../testing/scenario.js";
import { normalizationPatterns, runScenario } from "../testing/scenarioRunner.js";
import { renderTranscript } from "../testing/transcript.js";
import { ResponseRecorder } from "./responseRecorder.js";
import { responsesFromItems } from "./responsesFromItems.js";
import { scenarioFromSession, type AuditLine } from "./sessionScenario.js";
import { SANDBOX_MODES, sessionFromThread } from "./threadSession.js";
import { recordedFiles } from "./workspaceFiles.js";
import { mcpListings, mcpServersFrom } from "./mcpRecording.js";
import { outputPlace, writeOutput, type OutputPlace } from "./outputFiles.js";
import { resolveHome } from "../config/home.js";
import { readThreadHistory } from "../threads/threadFile.js";
import { SANDBOX_OWN_TREES } from "../workspace/roots.js";
import { UsageError } from "../cli/usageError.js";

/** The config keys a replay takes from the recorded server, so it offers the same tools and asks the same way. */
const REPLAYED_KEYS = ["model", "model_reasoning_effort", "model_reasoning_summary", "approval_policy", "sandbox_mode"] as const;

/** What a scenario is written from, whatever the source. */
interface Recorded {
  readonly lines: readonly AuditLine[];
  readonly model: readonly MockResponseInput[];
  readonly config: Record<string, string>;
  /** Secret values to mask in the model's responses and the files. */
  readonly secrets: readonly string[];
  /** The workspace when the client named none (the server's working directory). */
  readonly workspace: string;
  /** What of the session the scenario cannot hold. */
  readonly notes: readonly string[];
  /** The listings of the MCP servers that were ready (known only to a live recording). */
  readonly mcpListings?: ReturnType<typeof mcpListings>;
}

/**
 * `record --out DIR/NAME`: serves as `app-server` does, with the configured provider, keeping the
 * connection's messages (the audit log's, secrets already masked, in a private temporary
 * directory) and every model response. When serving ends it writes `NAME.scenario.json` and,
 * by replaying that offline once, its golden transcript `NAME.jsonl`.
 */
export async function record(out: string, options: Omit<ServeOptions, "sessionLog" | "recording">, serve: (options: ServeOptions) => Promise<void>): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), "agent-app-server-record-"));
  const recorder = new ResponseRecorder();
  const workspace = process.cwd();
  const { logger } = options;
  // Where the files go is settled before the model runs a command: see outputPlace.
  const place = outputPlace(out);
  await serve({
    ...options,
    sessionLog: logDir,
    recording: {
      modelTap: recorder.tap,
      finish: async (server) => {
        try {
          const sessions = readdirSync(logDir)
            .filter((file) => file.endsWith(".jsonl"))
            .sort()
            .map((file) => readAuditLog(path.join(logDir, file)))
            .filter((lines) => lines.some((line) => line.dir === "in"));
          if (sessions.length === 0) return logger.warn("record: no client sent anything; nothing written");
          if (sessions.length > 1) logger.warn({ connections: sessions.length }, "record: only the first connection is recorded");
          const current = server.configStore.current as Record<string, unknown>;
          const config = Object.fromEntries(REPLAYED_KEYS.filter((key) => typeof current[key] === "string").map((key) => [key, current[key] as string]));
          await writeRecording(
            place,
            { lines: sessions[0]!, model: recorder.responses, config, secrets: server.secrets().text, workspace, notes: [], mcpListings: mcpListings(server.mcpServers()) },
            logger,
          );
        } finally {
          rmSync(logDir, { recursive: true, force: true });
        }
      },
    },
  });
}

/**
 * `record --from-session-log FILE --out DIR/NAME`: a scenario from one connection's audit log
 * (`--session-log`). The log holds no model traffic, so the model's responses are rebuilt from
 * the items clients saw (see {@link responsesFromItems}); the config from `thread/start`'s answer.
 */
export async function recordFromSessionLog(out: string, file: string, logger: Logger): Promise<void> {
  const lines = readAuditLog(file);
  const started = lines.find(({ dir, msg }) => dir === "out" && msg.result?.thread && typeof msg.result.model === "string")?.msg.result;
  const config: Record<string, string> = {};
  if (started?.model) config.model = started.model;
  if (typeof started?.approvalPolicy === "string") config.approval_policy = started.approvalPolicy;
  const sandbox = SANDBOX_MODES[started?.sandbox?.type as string];
  if (sandbox) config.sandbox_mode = sandbox;
  await writeRebuilt(out, lines, config, process.cwd(), logger);
}

/**
 * `record --from-thread ID --out DIR/NAME`: a scenario from a stored thread of this home, its
 * steps and answers made as {@link sessionFromThread} says, the model's responses rebuilt from its items.
 */
export async function recordFromThread(out: string, threadId: string, logger: Logger): Promise<void> {
  const home = resolveHome();
  // Found by its file name and only read: the thread store's start-up would tidy the home, which a running server shares.
  const file = ["sessions", "archived_sessions"]
    .filter((dir) => existsSync(path.join(home, dir)))
    .flatMap((dir) => (readdirSync(path.join(home, dir), { recursive: true, encoding: "utf8" }) as string[]).map((name) => path.join(home, dir, name)))
    .find((name) => name.endsWith(`-${threadId}.jsonl`));
  if (!file) throw new UsageError(`no stored thread ${threadId} in ${home}`);
  const { history } = await readThreadHistory(file, logger);
  const { lines, config } = sessionFromThread(history);
  await writeRebuilt(out, lines, config, history.settings.cwd, logger);
}

/**
 * Writes a recording whose model traffic was not kept (an audit log, a stored thread): the model's
 * responses are rebuilt from the items, and the secrets to mask are this process's environment's.
 */
async function writeRebuilt(out: string, lines: readonly AuditLine[], config: Record<string, string>, workspace: string, logger: Logger): Promise<void> {
  const { responses, omitted } = responsesFromItems(lines);
  const secrets = logSecrets(process.env, { current: {} as Config, layers: [] })().text;
  const notes = omitted.length > 0 ? [`Items no scripted model call makes were left out: ${omitted.join(", ")}.`] : [];
  await writeRecording(outputPlace(out), { lines, model: responses, config, secrets, workspace, notes }, logger);
}

async function writeRecording(place: OutputPlace, recorded: Recorded, logger: Logger): Promise<void> {
  const { lines, secrets } = recorded;
  const out = place.out;
  const started = lines.find(({ dir, msg }) => dir === "in" && msg.method === "thread/start" && typeof msg.params?.cwd === "string");
  const root = (started?.msg.params.cwd as string | undefined) ?? recorded.workspace;
  // As a sandboxed command could read them: never the server's home (it may lie in the workspace, as ~ does), its /proc or /dev.
  const { files, omitted } = recordedFiles(
    lines.map((line) => line.msg),
    root,
    [resolveHome(), ...SANDBOX_OWN_TREES],
  );
  const notes = [...recorded.notes, ...(omitted.length > 0 ? [`Workspace files left out (too large, not text, or outside it): ${omitted.join(", ")}.`] : [])];
  const scenario = scenarioFromSession(lines, {
    name: path.basename(out),
    description: ["Recorded with agent-app-server record.", ...notes].join(" "),
    workspace: root,
    config: recorded.config,
    files: maskStrings(files, secrets),
    model: maskStrings(recorded.model, secrets),
    mcpServers: maskStrings(mcpServersFrom(lines, recorded.mcpListings), secrets),
    normalize: machineNames(lines),
  });
  const scenarioFile = writeOutput(place, ".scenario.json", JSON.stringify(scenario, null, 2) + "\n");
  logger.info({ file: scenarioFile }, "record: wrote the scenario; replaying it for the golden transcript");
  // The golden file is the replay's own transcript: `replay --check` passes on it at once, offline.
  // The replay runs the model's commands again, here: it gets no secret to print (it needs no
  // provider key), and what they print anyway (a file, another process's environment) is masked
  // as the scenario is, since the golden file is committed too.
  const transcript = await runScenario(scenario, { env: withoutSecrets(process.env, secrets) });
  logger.info({ file: writeOutput(place, ".jsonl", renderTranscript(maskStrings(transcript, secrets))) }, "record: wrote the golden transcript");
}

/**
 * Which of this machine's names (host, user) the server's messages show, as whole words (a command
 * printing `hostname` or `whoami`): the scenario normalizes those, so it replays on another machine.
 */
function machineNames(lines: readonly AuditLine[]): ScenarioNormalization[] {
  // The strings themselves, not their JSON: there a name after a newline follows the `n` of `\n`.
  const strings: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === "string") strings.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") Object.values(node).forEach(walk);
  };
  for (const line of lines) if (line.dir === "out") walk(line.msg);
  const text = strings.join("\n");
  return (["hostname", "user"] as const).filter((name) => normalizationPatterns([name])[0]!.regex.test(text));
}

/**
 * `value` with known secrets and credential-shaped text masked in every string. Unlike the audit
 * log's redaction, field names do not count: a response's `input_tokens` is a count, not a token.
 * A message's deltas are masked as the text they make: a key split across two deltas is found
 * whole, and the message is then kept as one delta.
 */
function maskStrings<T>(value: T, secrets: readonly string[]): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return redactText(node, secrets);
    if (isStrings(node) && node.length > 1) {
      const whole = node.join("");
      const masked = redactText(whole, secrets);
      return masked === whole ? node.map((piece) => redactText(piece, secrets)) : [masked];
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    return node;
  };
  return walk(value) as T;
}

/** `env` without the variables named like secrets or holding a known secret. */
function withoutSecrets(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !isSecretEnvName(name) && !(value && secrets.some((secret) => value.includes(secret)))));
}

function isStrings(node: unknown): node is string[] {
  return Array.isArray(node) && node.every((element) => typeof element === "string");
}

function readAuditLog(file: string): AuditLine[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as AuditLine);
}
