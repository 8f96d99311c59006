import * as z from "zod";
import { issuePath } from "./issuePath.js";
import { MockResponse } from "./mockScript.js";
import { RecordedMcpServers } from "./recordedMcp.js";

/** How the client answers a server request. */
export const ScenarioAnswer = z.union([
  z.object({ result: z.unknown() }),
  z.object({ error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }),
]);
export type ScenarioAnswer = z.infer<typeof ScenarioAnswer>;

const StepOptions = { timeoutMs: z.number().positive().optional(), comment: z.string().optional() };

/** One thing the client does. Keys follow `../shared/peer` scenarios, so a scenario plays against either server. */
export const ScenarioStep = z.union([
  z.looseObject({
    request: z.string(),
    params: z.unknown().optional(),
    /** Variables to keep from the response: name → dotted path (`result.thread.id`). */
    save: z.record(z.string(), z.string()).optional(),
    ...StepOptions,
  }),
  z.looseObject({ notify: z.string(), params: z.unknown().optional(), ...StepOptions }),
  /** A raw message object (for ids or shapes a well-behaved client would not send). */
  z.looseObject({ send: z.record(z.string(), z.unknown()), awaitResponse: z.boolean().optional(), ...StepOptions }),
  /** Raw text written to stdin as is (malformed lines). */
  z.looseObject({ sendRaw: z.string(), ...StepOptions }),
  /** Waits for the next message with this method (`count` of them), after the previous wait. */
  z.looseObject({ waitFor: z.string(), count: z.number().int().positive().optional(), ...StepOptions }),
  /** Answers the oldest held server request of this method (methods without an entry in `answers` are held). */
  z.looseObject({ answer: z.string(), result: z.unknown().optional(), error: z.unknown().optional(), ...StepOptions }),
  /** Stops the server (stdin closed) and starts it again on the same home and workspace. */
  z.looseObject({ restart: z.literal(true), ...StepOptions }),
  /** Checks a file in the workspace. */
  z.looseObject({
    check: z.object({ file: z.string(), exists: z.boolean().optional(), content: z.string().optional() }),
    ...StepOptions,
  }),
  z.looseObject({ comment: z.string() }),
]);
export type ScenarioStep = z.infer<typeof ScenarioStep>;

/**
 * What of a transcript differs between machines and is replaced before comparing: `hostname` and
 * `user` (this machine's, as whole words: `{HOSTNAME}`, `{USER}`), `time` (clock times and ISO
 * dates: `{TIME}`), or any regular expression with its replacement.
 */
export const ScenarioNormalization = z.union([z.enum(["hostname", "user", "time"]), z.object({ pattern: z.string().refine(isRegExp, "not a valid regular expression"), with: z.string() })]);
export type ScenarioNormalization = z.infer<typeof ScenarioNormalization>;

/** A relative path that stays inside the directory it is taken from (no `..` step, not absolute). */
function isWorkspaceName(name: string): boolean {
  return name !== "" && !name.startsWith("/") && !name.split(/[\\/]/).includes("..");
}

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "g");
    return true;
  } catch {
    return false;
  }
}

/** A scripted session: the client's steps, its answers to server requests, and the model's responses. */
export const Scenario = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  /** Send `initialize` and `initialized` first (and after each restart). */
  initialize: z.boolean().default(true),
  /** `-c key=value` overrides (for example `approval_policy`, `sandbox_mode`). */
  config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** Files to create in the workspace first: relative path → content. */
  files: z.record(z.string().refine(isWorkspaceName, "a file of the workspace: a relative path that stays inside it"), z.string()).default({}),
  /** The scripted model's responses, one per model request. */
  model: z.array(MockResponse).default([]),
  /** MCP servers answered from a recording (tools, each call's answer, resource reads), none started. */
  mcpServers: RecordedMcpServers.default({}),
  /** What differs between machines, replaced in the transcript (command output that names the host, say). */
  normalize: z.array(ScenarioNormalization).default([]),
  /** Standing answers to server requests, by method. */
  answers: z.record(z.string(), ScenarioAnswer).default({}),
  steps: z.array(ScenarioStep),
});
export type Scenario = z.infer<typeof Scenario>;

/** Validates a scenario; the error names the bad entry (`steps[3]`). */
export function parseScenario(value: unknown): Scenario {
  const parsed = Scenario.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issuePath(issue.path);
  // A refused record key (a file's name) carries its reason one level down.
  const nested = issue.code === "invalid_key" ? issue.issues[0]?.message : undefined;
  throw new Error(`invalid scenario at ${where || "top level"}: ${nested ?? issue.message}`);
}
