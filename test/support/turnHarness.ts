import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { startMockModel, type MockModel, type MockModelOptions, type MockResponseInput } from "../../src/testing/index.js";
import { afterEachTest } from "./afterEachTest.js";
import { ServerProcess } from "./serverProcess.js";
import { turnViolations } from "./turnInvariants.js";

/** How the mock provider is configured. */
export interface ProviderOptions {
  wire?: "responses" | "chat" | "anthropic" | "gemini";
  /** The model (default `gpt-5.5`). */
  model?: string;
  /** The variable the provider's key comes from (default: none). */
  envKey?: string;
  requestRetries?: number;
  streamRetries?: number;
  idleMs?: number;
}

/** Mock models, temp dirs and servers of the current test, cleaned up (and checked) after it. */
export const mocks: MockModel[] = [];
export const dirs: string[] = [];
export const servers: ServerProcess[] = [];

afterEachTest(async () => {
  for (const server of servers.splice(0)) expect(turnViolations(server.messages), "turn lifecycle").toEqual([]);
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** The `-c` flags the peer harness gives `codex app-server`, pointing at the mock. */
export function providerArgs(url: string, options: ProviderOptions = {}): string[] {
  const table = [
    `name="mock"`,
    `base_url="${url}"`,
    `wire_api="${options.wire ?? "responses"}"`,
    `request_max_retries=${options.requestRetries ?? 0}`,
    `stream_max_retries=${options.streamRetries ?? 0}`,
    ...(options.idleMs ? [`stream_idle_timeout_ms=${options.idleMs}`] : []),
    ...(options.envKey ? [`env_key="${options.envKey}"`] : []),
  ];
  return ["-c", `model_provider="mock"`, "-c", `model_providers.mock={${table.join(",")}}`, "-c", `model="${options.model ?? "gpt-5.5"}"`];
}

/** Starts the mock (unless given) and the server pointed at it, and initializes. */
export async function launch(
  responses: MockResponseInput[],
  options: ProviderOptions & {
    home?: string;
    env?: NodeJS.ProcessEnv;
    mock?: MockModel;
    /** Options of the mock started here (not of one given as `mock`). */
    mockOptions?: Omit<MockModelOptions, "responses">;
    args?: string[];
    approval?: string;
    sandbox?: string;
    /** `initialize` capabilities (e.g. `{experimentalApi: true}`). */
    capabilities?: object;
    wrapper?: string[];
    /** The server's working directory (the workspace of `command/exec`). */
    cwd?: string;
    /** Descriptors the server inherits beyond 0–2. */
    extraFds?: number[];
  } = {},
): Promise<{ server: ServerProcess; mock: MockModel }> {
  const mock = options.mock ?? (await startMockModel({ ...options.mockOptions, responses }));
  if (!options.mock) mocks.push(mock);
  const server = ServerProcess.start({
    home: options.home,
    args: [
      "app-server",
      // The Anthropic and Gemini SDKs add their API's version to the base URL themselves.
      ...providerArgs(options.wire === "anthropic" || options.wire === "gemini" ? mock.origin : mock.url, options),
      "-c",
      `approval_policy="${options.approval ?? "never"}"`,
      "-c",
      `sandbox_mode="${options.sandbox ?? "read-only"}"`,
      ...(options.args ?? []),
    ],
    env: { OPENAI_API_KEY: "", ...options.env },
    wrapper: options.wrapper,
    cwd: options.cwd,
    extraFds: options.extraFds,
  });
  servers.push(server);
  await server.initialize(options.capabilities);
  return { server, mock };
}

export async function startThread(server: ServerProcess, params: object = {}): Promise<string> {
  const response = await server.request("thread/start", { cwd: tempDir("aas-ws-"), ...params });
  expect(response.error).toBeUndefined();
  return response.result.thread.id;
}

/** Starts a turn and resolves with its id and its `turn/completed`. */
export async function runTurn(server: ServerProcess, threadId: string, text: string, extra: object = {}): Promise<{ turnId: string; completed: any }> {
  const response = await server.request("turn/start", { threadId, input: [{ type: "text", text }], ...extra });
  expect(response.error).toBeUndefined();
  const turnId = response.result.turn.id;
  const completed = await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, `turn/completed of ${turnId}`);
  return { turnId, completed };
}

/** The notifications of one turn, condensed to `method` or `method:itemType`. */
export function sequence(server: ServerProcess, turnId: string): string[] {
  return server.messages
    .filter((m) => m.method && (m.params?.turnId === turnId || m.params?.turn?.id === turnId || m.method === "thread/status/changed"))
    .map((m) => (m.params?.item ? `${m.method}:${m.params.item.type}` : m.method));
}

export function collapse(list: string[]): string[] {
  return list.filter((entry, index) => entry !== list[index - 1]);
}

