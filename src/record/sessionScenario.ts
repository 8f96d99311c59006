import type { MockResponseInput } from "../testing/mockScript.js";
import type { RecordedMcpServers } from "../testing/recordedMcp.js";
import type { ScenarioNormalization } from "../testing/scenario.js";

/** One line of a connection's audit log (`--session-log`): a message and its direction. */
export interface AuditLine {
  readonly dir: "in" | "out";
  readonly msg: Record<string, any>;
}

/** What a scenario is made from besides the messages. */
export interface ScenarioSources {
  readonly name: string;
  readonly description: string;
  /** The workspace the session worked in: its path becomes `${WORKSPACE}`. */
  readonly workspace: string;
  /** `-c` overrides the replay needs to behave as the recorded server did. */
  readonly config: Record<string, string | number | boolean>;
  readonly files: Record<string, string>;
  readonly model: readonly MockResponseInput[];
  /** The MCP servers the session used, answered from the recording in a replay. */
  readonly mcpServers: RecordedMcpServers;
  /** What of the transcript is this machine's (see the scenario's `normalize`). */
  readonly normalize: readonly ScenarioNormalization[];
}

/** Where a response names an id a later request may use: dotted path → variable stem. */
const SAVED_IDS: ReadonlyArray<readonly [string, string]> = [
  ["result.thread.id", "threadId"],
  ["result.turn.id", "turnId"],
  ["result.review.turn.id", "turnId"],
];

/**
 * A connection's messages as a scenario: the client's requests and notifications become steps
 * (ids it got from responses become saved variables, the workspace path `${WORKSPACE}`), its
 * answers to server requests become `answer` steps, and where the client waited for a turn to
 * end (or, for an interrupt, for the stream to reach a point) a `waitFor` step says so.
 */
export function scenarioFromSession(lines: readonly AuditLine[], sources: ScenarioSources): Record<string, unknown> {
  const steps: Record<string, unknown>[] = [];
  const pendingRequests = new Map<unknown, Record<string, unknown>>();
  const serverRequests = new Map<unknown, string>();
  const variables = new Map<string, string>();
  const stems = new Map<string, number>();
  // Notifications since the last point the scenario waits for.
  let sinceWait: string[] = [];
  const substitute = (value: unknown): unknown => {
    if (typeof value === "string") {
      const name = variables.get(value);
      if (name) return `\${${name}}`;
      return sources.workspace && value.includes(sources.workspace) ? value.split(sources.workspace).join("${WORKSPACE}") : value;
    }
    if (Array.isArray(value)) return value.map(substitute);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner)]));
    return value;
  };
  const save = (step: Record<string, unknown>, response: Record<string, any>) => {
    for (const [where, stem] of SAVED_IDS) {
      const value = where.split(".").reduce<any>((node, key) => node?.[key], response);
      if (typeof value !== "string" || variables.has(value)) continue;
      const count = (stems.get(stem) ?? 0) + 1;
      stems.set(stem, count);
      const name = count === 1 ? stem : `${stem}${count}`;
      variables.set(value, name);
      step.save = { ...(step.save as object | undefined), [name]: where };
    }
  };
  // A wait for the turns that ended since the last wait, if any did.
  const waitForEndedTurns = () => {
    const ended = sinceWait.lastIndexOf("turn/completed");
    if (ended < 0) return;
    steps.push(waitStep("turn/completed", sinceWait.slice(0, ended + 1).filter((method) => method === "turn/completed").length));
    sinceWait = sinceWait.slice(ended + 1);
  };
  for (const { dir, msg } of lines) {
    if (dir === "out") {
      if (msg.method !== undefined && msg.id !== undefined) serverRequests.set(msg.id, msg.method);
      else if (msg.method !== undefined) sinceWait.push(msg.method);
      else if (pendingRequests.has(msg.id)) {
        const step = pendingRequests.get(msg.id)!;
        pendingRequests.delete(msg.id);
        if (msg.result) save(step, msg);
      }
      continue;
    }
    // The client acted: first, what it had waited for.
    waitForEndedTurns();
    if (msg.method === "turn/interrupt" && sinceWait.length > 0) {
      // Interrupted mid-stream: the replayed model streams as far and hangs; wait until it got there.
      const last = sinceWait[sinceWait.length - 1]!;
      steps.push(waitStep(last, sinceWait.filter((method) => method === last).length));
      sinceWait = [];
    }
    if (msg.method !== undefined && msg.id !== undefined) {
      const step: Record<string, unknown> = { request: msg.method, ...(msg.params !== undefined ? { params: substitute(msg.params) } : {}) };
      pendingRequests.set(msg.id, step);
      steps.push(step);
    } else if (msg.method !== undefined) {
      steps.push({ notify: msg.method, ...(msg.params !== undefined ? { params: substitute(msg.params) } : {}) });
    } else if (serverRequests.has(msg.id)) {
      const method = serverRequests.get(msg.id)!;
      serverRequests.delete(msg.id);
      steps.push({ answer: method, ...("error" in msg ? { error: msg.error } : { result: substitute(msg.result) }) });
    }
  }
  // A session that ended while a turn ran still waits for what it saw of it.
  waitForEndedTurns();
  const initialized = lines.some(({ dir, msg }) => dir === "in" && msg.method === "initialize");
  return {
    name: sources.name,
    description: sources.description,
    // The recorded client's own initialize (its capabilities) is a step, not the runner's.
    initialize: !initialized,
    config: sources.config,
    files: sources.files,
    ...(sources.normalize.length > 0 ? { normalize: sources.normalize } : {}),
    model: sources.model,
    ...(Object.keys(sources.mcpServers).length > 0 ? { mcpServers: sources.mcpServers } : {}),
    answers: {},
    steps,
  };
}

/** A step that waits for `count` messages of `method` (the count left out when it is one). */
function waitStep(method: string, count: number): Record<string, unknown> {
  return count === 1 ? { waitFor: method } : { waitFor: method, count };
}
