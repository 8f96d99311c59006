import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PassThrough, Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { Ajv2020 } from "ajv/dist/2020.js";
import { CLI_PATH } from "./serverProcess.js";
import { tempDir } from "./turnHarness.js";

const schema = createRequire(import.meta.url)("@agentclientprotocol/sdk/schema/v1/schema.json") as { $defs: Record<string, Record<string, unknown>> };
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, "acp");

/** The schema's definition of `method`'s message of `kind`, sent by `side`'s peer (`x-side` names who handles it). */
function definition(method: string, side: "agent" | "client", kind: "Request" | "Response" | "Notification"): string | undefined {
  return Object.entries(schema.$defs).find(([name, def]) => def["x-method"] === method && def["x-side"] === side && name.endsWith(kind))?.[0];
}

function check(def: string, value: unknown): string | null {
  const validate = ajv.getSchema(`acp#/$defs/${def}`)!;
  return validate(value) ? null : `${def}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`;
}

/** A spawned `agent-app-server acp`, driven as an editor drives it, every message it writes checked against ACP's schema. */
export interface AcpAgent {
  readonly child: ChildProcessWithoutNullStreams;
  readonly connection: acp.ClientConnection;
  readonly agent: acp.ClientContext;
  /** Every `session/update`, in order. */
  readonly updates: Array<{ sessionId: string; update: acp.SessionUpdate }>;
  /** Messages from the agent that broke the schema (a test expects none). */
  readonly invalid: string[];
  /** Everything the agent wrote to stderr. */
  stderr(): string;
  /** Closes stdin and waits for the process to exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

/** How the editor answers the agent's requests. */
export interface EditorHandlers {
  readonly permission?: (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  readonly readTextFile?: (request: acp.ReadTextFileRequest) => acp.ReadTextFileResponse | Promise<acp.ReadTextFileResponse>;
  readonly writeTextFile?: (request: acp.WriteTextFileRequest) => acp.WriteTextFileResponse | Promise<acp.WriteTextFileResponse>;
}

const running: AcpAgent[] = [];

/** Spawns the agent with `args` (server options) and connects to it. */
export function startAcp(args: readonly string[], options: { home?: string; cwd?: string; env?: NodeJS.ProcessEnv; handlers?: EditorHandlers } = {}): AcpAgent {
  const home = options.home ?? tempDir("aas-acp-home-");
  const child = spawn(process.execPath, [CLI_PATH, "acp", ...args], {
    cwd: options.cwd,
    env: { ...process.env, HOME: home, LOG_LEVEL: "info", ...options.env, AGENT_APP_SERVER_HOME: home },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const invalid: string[] = [];
  const methodsOfIds = new Map<unknown, string>();
  const tap = new PassThrough();
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    tap.write(chunk);
    pending += chunk.toString("utf8");
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim()) validateFromAgent(JSON.parse(line), methodsOfIds, invalid);
    }
  });
  child.stdout.on("end", () => tap.end());
  // What the editor sends: kept so the agent's answers are checked against their methods' results.
  const toAgent = new PassThrough();
  toAgent.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      const message = JSON.parse(line) as { id?: unknown; method?: string };
      if (message.id !== undefined && message.method) methodsOfIds.set(message.id, message.method);
    }
    child.stdin.write(chunk);
  });
  const updates: AcpAgent["updates"] = [];
  const handlers = options.handlers ?? {};
  const client = acp
    .client({ name: "test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push({ sessionId: params.sessionId, update: params.update }))
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) =>
      handlers.permission ? handlers.permission(params) : { outcome: { outcome: "selected", optionId: params.options[0]!.optionId } },
    )
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      if (!handlers.readTextFile) throw acp.RequestError.methodNotFound("fs/read_text_file");
      return handlers.readTextFile(params);
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      if (!handlers.writeTextFile) throw acp.RequestError.methodNotFound("fs/write_text_file");
      return handlers.writeTextFile(params);
    });
  const connection = client.connect(acp.ndJsonStream(Writable.toWeb(toAgent) as WritableStream<Uint8Array>, Readable.toWeb(tap) as ReadableStream<Uint8Array>));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const handle: AcpAgent = {
    child,
    connection,
    agent: connection.agent,
    updates,
    invalid,
    stderr: () => stderr,
    close: async () => {
      child.stdin.end();
      return exited;
    },
  };
  running.push(handle);
  return handle;
}

/**
 * Starts the agent with `args` and opens one session in `cwd`, initialized as an editor whose fs
 * capabilities are the handlers given (reading, writing files).
 */
export async function startAcpSession(args: readonly string[], options: { cwd: string; home?: string; handlers?: EditorHandlers }): Promise<{ agent: AcpAgent; sessionId: string }> {
  const agent = startAcp(args, options);
  const fs = { readTextFile: options.handlers?.readTextFile !== undefined, writeTextFile: options.handlers?.writeTextFile !== undefined };
  await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: fs.readTextFile || fs.writeTextFile ? { fs } : {} });
  const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers: [] });
  return { agent, sessionId };
}

/**
 * An editor with no unsaved buffer: it reads and writes each path as the path resolves now, as a
 * real one does, noting in `saw` each text read (`read <text>`) and each path written (`write <path>`).
 */
export function diskEditor(saw: string[]): EditorHandlers {
  return {
    readTextFile: (request) => {
      const content = readFileSync(request.path, "utf8");
      saw.push(`read ${content.trim()}`);
      return { content };
    },
    writeTextFile: (request) => {
      writeFileSync(request.path, request.content);
      saw.push(`write ${request.path}`);
      return {};
    },
  };
}

/** Stops every agent a test started (afterEach). */
export async function stopAcpAgents(): Promise<void> {
  await Promise.all(running.splice(0).map((entry) => (entry.child.exitCode === null ? (entry.child.kill("SIGKILL"), entry.close()) : undefined)));
}

function validateFromAgent(message: Record<string, unknown>, methodsOfIds: Map<unknown, string>, invalid: string[]): void {
  const method = message.method as string | undefined;
  const problems: Array<string | null> = [];
  if (method && message.id !== undefined) {
    problems.push(check("AgentRequest", message));
    const def = definition(method, "client", "Request");
    problems.push(def ? check(def, message.params) : `no request ${method} in ACP`);
  } else if (method) {
    problems.push(check("AgentNotification", message));
    const def = definition(method, "client", "Notification");
    problems.push(def ? check(def, message.params) : `no notification ${method} in ACP`);
  } else {
    problems.push(check("AgentResponse", message));
    const answered = methodsOfIds.get(message.id);
    const def = answered && "result" in message ? definition(answered, "agent", "Response") : undefined;
    // `session/set_model` predates config options: no longer in the schema, sent by older editors.
    if (def) problems.push(check(def, message.result));
    else if (answered && "result" in message && answered !== "session/set_model") problems.push(`no response of ${answered} in ACP`);
  }
  invalid.push(...problems.filter((problem): problem is string => problem !== null));
}
