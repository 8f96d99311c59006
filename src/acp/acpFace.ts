import { Readable, Writable } from "node:stream";
import path from "node:path";
import { AppServerClient, AppServerError, type ServerEvent } from "../client/index.js";
import type { AppServer } from "../server/appServer.js";
import type { Logger } from "../runtime/logger.js";
import { SERVER_VERSION } from "../runtime/version.js";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext, type McpServer, type SessionUpdate } from "../vendor/acp.js";
import { AcpSession, TurnFailed } from "./acpSession.js";
import { authMethods, checkAuthenticated } from "./acpAuth.js";
import { configOptions, modeOf, modeState } from "./modes.js";
import { availableCommands } from "./slashCommands.js";
import { mcpServerConfigs } from "./mcpServers.js";

/** The server's answer to a request the editor's params made invalid, as the same error to the editor; anything else as it is. */
function acpError(error: unknown): unknown {
  return error instanceof AppServerError && (error.code === -32600 || error.code === -32602) ? new RequestError(error.code, error.message) : error;
}

/** ACP's paths are absolute: a relative cwd would be the agent's own, not the editor's project. */
function absoluteCwd(cwd: string): string {
  if (!path.isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  return cwd;
}

/**
 * A session's other workspace roots (ACP's `additionalDirectories`, absolute) as writable roots of
 * its thread, as its cwd is: what `workspace-write` lets commands and patches change.
 */
function extraRoots(directories: readonly string[] | null | undefined, configured: readonly string[] = []): { config?: Record<string, unknown> } {
  if (!directories?.length) return {};
  for (const directory of directories) if (!path.isAbsolute(directory)) throw RequestError.invalidParams({ directory }, "additionalDirectories must be absolute paths");
  // Beside the configured roots: the thread's key replaces the config's.
  return { config: { "sandbox_workspace_write.writable_roots": [...configured, ...directories] } };
}

/** Updates waiting for the editor past which the server's messages are not read, and down to which they are again. */
const PAUSE_READING_AT = 256;
const RESUME_READING_AT = 64;

/** Sessions listed per page, as codex-acp lists them. */
const SESSIONS_PER_PAGE = 25;

/**
 * `agent-app-server acp`: the Agent Client Protocol over `input`/`output` (stdio), served by the
 * same server as `app-server` through an in-process client of it. An ACP session is a thread, a
 * prompt is a turn; the thread's notifications become `session/update`s and its approvals
 * `session/request_permission`s. Resolves when the editor hangs up.
 */
export async function serveAcp(server: AppServer, input: Readable, output: Writable, logger: Logger): Promise<void> {
  const client = await AppServerClient.inProcess(server, {
    clientInfo: { name: "agent-app-server-acp", title: "ACP", version: SERVER_VERSION },
    capabilities: { experimentalApi: true },
    requestTimeoutMs: null,
  });
  const sessions = new Map<string, AcpSession>();
  const queues = new Map<string, Promise<void>>();
  let editor: AgentContext | undefined;
  let editorFs: { readTextFile?: boolean; writeTextFile?: boolean } = {};
  let models: Array<{ id: string; name: string; description?: string }> | undefined;

  // Each session's notifications reach the editor in order, one after another. An editor that
  // stops reading would make them pile up here: past a bound, the server's output is no longer read,
  // and the server holds its turns (as for any slow client) until the editor catches up.
  let undelivered = 0;
  let paused = false;
  const enqueue = (sessionId: string, work: () => Promise<void>) => {
    if (++undelivered >= PAUSE_READING_AT && !paused) {
      paused = true;
      client.pauseReading();
    }
    const next = (queues.get(sessionId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => logger.warn({ err: error, sessionId }, "acp: an update was not delivered"))
      .finally(() => {
        if (--undelivered <= RESUME_READING_AT && paused) {
          paused = false;
          client.resumeReading();
        }
      });
    queues.set(sessionId, next);
    return next;
  };
  client.onAny((event: ServerEvent) => {
    const threadId = (event.params as { threadId?: unknown }).threadId;
    const session = typeof threadId === "string" ? sessions.get(threadId) : undefined;
    if (session) void enqueue(session.id, () => session.handle(event));
  });
  // A question waits for the updates sent before it (not for the answer, which may take the user
  // long): the editor has the tool call it asks about, whose title a file change's question lacks.
  // A thread of no session here is declined.
  const inOrder = async <T>(threadId: string, ask: (session: AcpSession) => Promise<T>): Promise<T | undefined> => {
    const session = sessions.get(threadId);
    if (!session) return undefined;
    await queues.get(session.id);
    return ask(session);
  };
  client.onRequest("item/commandExecution/requestApproval", async (params) => ({ decision: (await inOrder(params.threadId, (session) => session.askCommand(params))) ?? "decline" }));
  client.onRequest("item/fileChange/requestApproval", async (params) => ({ decision: (await inOrder(params.threadId, (session) => session.askFileChange(params))) ?? "decline" }));

  const open = (sessionId: string, mode: ReturnType<typeof modeOf>, model: string) => {
    const session = new AcpSession(sessionId, mode, model, {
      server: client,
      update: (update: SessionUpdate) => editor!.notify(methods.client.session.update, { sessionId, update }),
      askPermission: (request) => editor!.request(methods.client.session.requestPermission, { sessionId, ...request }),
    });
    sessions.set(sessionId, session);
    // The reason editors speak ACP: the model reads their unsaved buffers and patches show in them
    // (in a sandbox, while no command runs: see turnEditor.ts).
    if (editorFs.readTextFile) {
      server.threads.useEditorFiles(sessionId, {
        read: (path) => editor!.request(methods.client.fs.readTextFile, { sessionId, path }).then((file) => file.content, () => null),
        write: editorFs.writeTextFile ? async (path, content) => void (await editor!.request(methods.client.fs.writeTextFile, { sessionId, path, content })) : undefined,
      });
    }
    return session;
  };
  const known = async () => (models ??= (await client.request("model/list", {})).data.map((model) => ({ id: model.model, name: model.displayName, description: model.description })));
  const settings = async (session: AcpSession) => ({
    modes: modeState(session.currentMode),
    configOptions: configOptions(session.currentMode, session.currentModel, await known()),
    // The model picker of editors that predate config options (Zed's), as codex-acp offers it.
    models: { currentModelId: session.currentModel, availableModels: (await known()).map(({ id, name, description }) => ({ modelId: id, name, description })) },
  });
  const required = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.resourceNotFound(sessionId);
    return session;
  };
  /**
   * `session/load` (the history replayed as updates first) and `session/resume` (without it): the
   * thread resumed in `cwd`. A session open here already stays the same session (an editor
   * reopening it, perhaps mid-prompt), whose running prompt still ends.
   */
  const reopen = async (params: { sessionId: string; cwd: string; mcpServers?: McpServer[]; additionalDirectories?: string[] }, replay: boolean) => {
    absoluteCwd(params.cwd);
    const resumed = await client.request("thread/resume", { threadId: params.sessionId, cwd: params.cwd, ...extraRoots(params.additionalDirectories, configuredRoots()) }).catch(() => {
      throw RequestError.resourceNotFound(params.sessionId);
    });
    await server.addThreadMcpServers(resumed.thread.id, mcpServerConfigs(params.mcpServers));
    const session = sessions.get(resumed.thread.id) ?? open(resumed.thread.id, modeOf(resumed.approvalPolicy, resumed.sandbox.type), resumed.model);
    if (replay) await enqueue(session.id, () => session.replay(resumed.thread.turns));
    announce(session.id);
    return settings(session);
  };
  const configuredRoots = () => server.configStore.current.sandbox_workspace_write?.writable_roots ?? [];
  // After the answer: the editor learns the session first.
  const announce = (sessionId: string) =>
    setImmediate(() => void enqueue(sessionId, () => editor!.notify(methods.client.session.update, { sessionId, update: { sessionUpdate: "available_commands_update", availableCommands: availableCommands() } })));

  const app = agent({ name: "agent-app-server" })
    .onRequest(methods.agent.initialize, ({ params, client: context }) => {
      editor = context;
      editorFs = params.clientCapabilities?.fs ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
        },
        authMethods: authMethods(server.configStore.current),
        agentInfo: { name: "agent-app-server", title: "agent-app-server", version: SERVER_VERSION },
      };
    })
    .onRequest(methods.agent.authenticate, async ({ params }) => {
      await checkAuthenticated(params.methodId, server.configStore.current, client);
      return {};
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const cwd = absoluteCwd(params.cwd);
      const started = await client.request("thread/start", { cwd, ...extraRoots(params.additionalDirectories, configuredRoots()) }).catch((error: unknown) => {
        throw acpError(error);
      });
      // Before the answer: the first prompt has their tools.
      await server.addThreadMcpServers(started.thread.id, mcpServerConfigs(params.mcpServers));
      const session = open(started.thread.id, modeOf(started.approvalPolicy, started.sandbox.type), started.model);
      announce(session.id);
      return { sessionId: session.id, ...(await settings(session)) };
    })
    .onRequest(methods.agent.session.load, ({ params }) => reopen(params, true))
    .onRequest(methods.agent.session.resume, ({ params }) => reopen(params, false))
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = required(params.sessionId);
      await session.cancel();
      sessions.delete(session.id);
      await server.closeThreadMcpServers(session.id);
      await client.request("thread/unsubscribe", { threadId: session.id }).catch(() => undefined);
      return {};
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const page = await client.request("thread/list", { cwd: params.cwd ?? null, cursor: params.cursor ?? null, limit: SESSIONS_PER_PAGE, sortKey: "updated_at" }).catch((error: unknown) => {
        throw acpError(error);
      });
      return {
        sessions: page.data.map((thread) => ({
          sessionId: thread.id,
          cwd: thread.cwd,
          title: thread.name ?? (thread.preview || null),
          updatedAt: new Date(thread.updatedAt * 1000).toISOString(),
        })),
        nextCursor: page.nextCursor ?? null,
      };
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => {
      try {
        return { stopReason: await required(params.sessionId).prompt(params.prompt) };
      } catch (error) {
        if (error instanceof TurnFailed) throw RequestError.internalError({ message: error.message }, error.message);
        throw acpError(error);
      }
    })
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      if (!required(params.sessionId).setMode(params.modeId)) throw RequestError.invalidParams({ modeId: params.modeId }, `no mode ${params.modeId}`);
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      const session = required(params.sessionId);
      const value = String(params.value);
      if (params.configId === "mode") {
        if (!session.setMode(value)) throw RequestError.invalidParams({ value }, `no mode ${value}`);
      } else if (params.configId === "model") session.setModel(value);
      else throw RequestError.invalidParams({ configId: params.configId }, `no config option ${params.configId}`);
      return { configOptions: (await settings(session)).configOptions };
    })
    // Dropped from ACP's schema for config options, but sent by editors that predate them.
    .onRequest("session/set_model", (params) => params as { sessionId: string; modelId: string }, ({ params }) => {
      required(params.sessionId).setModel(params.modelId);
      return {};
    });

  const connection = app.connect(ndJsonStream(Writable.toWeb(output) as WritableStream<Uint8Array>, Readable.toWeb(input) as ReadableStream<Uint8Array>));
  await connection.closed;
  await client.close();
}
