import { startMockModel, type MockModel, type MockResponseInput } from "../../src/testing/index.js";
import { ServerProcess } from "./serverProcess.js";
import { mocks, providerArgs, servers, type ProviderOptions } from "./turnHarness.js";

/** How {@link recordTurn} runs the server. */
export interface RecordTurnOptions {
  readonly sandbox: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly provider?: ProviderOptions;
}

/**
 * Runs `agent-app-server record --out out` on one turn of `responses` in `workspace` (approval
 * policy never); resolves with its exit code, its stderr and the mock model it talked to.
 */
export async function recordTurn(responses: MockResponseInput[], workspace: string, out: string, options: RecordTurnOptions): Promise<{ code: number | null; stderr: string; mock: MockModel }> {
  const mock = await startMockModel({ responses });
  mocks.push(mock);
  const server = ServerProcess.start({
    home: options.home,
    args: ["record", "--out", out, ...providerArgs(mock.url, options.provider), "-c", `approval_policy="never"`, "-c", `sandbox_mode="${options.sandbox}"`],
    env: options.env,
    cwd: workspace,
  });
  servers.push(server);
  await server.initialize();
  const threadId = (await server.request("thread/start", { cwd: workspace })).result.thread.id;
  const turnId = (await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] })).result.turn.id;
  await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId, "turn/completed", 20_000);
  const exit = await server.closeStdin(60_000);
  return { code: exit.code, stderr: server.stderr, mock };
}
