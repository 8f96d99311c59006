import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServeOptions } from "../cli/serve.js";
import type { Logger } from "../runtime/logger.js";
import type { AppServer } from "../server/appServer.js";
import { redactText } from "../server/secretPatterns.js";
import { runScenario } from "../testing/scenarioRunner.js";
import { renderTranscript } from "../testing/transcript.js";
import { ResponseRecorder } from "./responseRecorder.js";
import { scenarioFromSession, type AuditLine } from "./sessionScenario.js";
import { recordedFiles } from "./workspaceFiles.js";

/** The config keys a replay takes from the recorded server, so it offers the same tools and asks the same way. */
const REPLAYED_KEYS = ["model", "model_reasoning_effort", "model_reasoning_summary", "approval_policy", "sandbox_mode"] as const;

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
  await serve({
    ...options,
    sessionLog: logDir,
    recording: {
      modelTap: recorder.tap,
      finish: async (server) => {
        try {
          await writeRecording(out, { server, logDir, recorder, workspace, logger: options.logger });
        } finally {
          rmSync(logDir, { recursive: true, force: true });
        }
      },
    },
  });
}

async function writeRecording(
  out: string,
  { server, logDir, recorder, workspace, logger }: { server: AppServer; logDir: string; recorder: ResponseRecorder; workspace: string; logger: Logger },
): Promise<void> {
  const sessions = readdirSync(logDir)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) => readAuditLog(path.join(logDir, file)))
    .filter((lines) => lines.some((line) => line.dir === "in"));
  if (sessions.length === 0) {
    logger.warn("record: no client sent anything; nothing written");
    return;
  }
  if (sessions.length > 1) logger.warn({ connections: sessions.length }, "record: only the first connection is recorded");
  const lines = sessions[0]!;
  const started = lines.find(({ dir, msg }) => dir === "in" && msg.method === "thread/start" && typeof msg.params?.cwd === "string");
  const root = (started?.msg.params.cwd as string | undefined) ?? workspace;
  const secrets = server.secrets();
  const { files, omitted } = recordedFiles(
    lines.map((line) => line.msg),
    root,
  );
  const current = server.configStore.current as Record<string, unknown>;
  const config = Object.fromEntries(REPLAYED_KEYS.filter((key) => typeof current[key] === "string").map((key) => [key, current[key] as string]));
  const name = path.basename(out);
  const scenario = scenarioFromSession(lines, {
    name,
    description: `Recorded with agent-app-server record.${omitted.length > 0 ? ` Workspace files left out (too large, not text, or outside it): ${omitted.join(", ")}.` : ""}`,
    workspace: root,
    config,
    files: maskStrings(files, secrets.text),
    model: maskStrings(recorder.responses, secrets.text),
  });
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const scenarioFile = `${out}.scenario.json`;
  writeFileSync(scenarioFile, JSON.stringify(scenario, null, 2) + "\n");
  logger.info({ file: scenarioFile }, "record: wrote the scenario; replaying it for the golden transcript");
  // The golden file is the replay's own transcript: `replay --check` passes on it at once, offline.
  const transcript = await runScenario(scenario);
  writeFileSync(`${out}.jsonl`, renderTranscript(transcript));
  logger.info({ file: `${out}.jsonl` }, "record: wrote the golden transcript");
}

/**
 * `value` with known secrets and credential-shaped text masked in every string. Unlike the audit
 * log's redaction, field names do not count: a response's `input_tokens` is a count, not a token.
 */
function maskStrings<T>(value: T, secrets: readonly string[]): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return redactText(node, secrets);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    return node;
  };
  return walk(value) as T;
}

function readAuditLog(file: string): AuditLine[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as AuditLine);
}
