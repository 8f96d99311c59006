import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A consumer project in a temp directory with this package installed as a symlink
// (node_modules/agent-app-server → the checkout), so the package.json "exports" and the built
// dist/*.d.ts are what it sees, type-checked with the strictest flags a consumer may use and
// without skipLibCheck: our declarations are checked as a consumer's compiler checks them.
const ROOT = path.resolve(".");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

const CONSUMER_FILES: Record<string, string> = {
  "src/server.ts": `
import { buildAppServer, createAppServer, type AppServer, type AppServerOptions, type Config } from "agent-app-server";
import { AppServerClient, type ServerEvent, type ThreadItem } from "agent-app-server/client";

const config: Config = { model_provider: "ollama", model: "qwen2.5-coder" };
export const options: Omit<AppServerOptions, "logger"> = { home: "/tmp/h", config, maxPendingRequests: 8 };
export const build: typeof buildAppServer = buildAppServer;

export async function main(home: string): Promise<string> {
  const server: AppServer = await createAppServer({ home, config });
  const client = await AppServerClient.inProcess(server);
  client.onCommandApproval((request) => (request.command?.startsWith("ls") ? "accept" : "decline"));
  client.on("item/agentMessage/delta", ({ delta }) => void delta.length);
  const { thread } = await client.startThread({ cwd: "/tmp" });
  const text = await AppServerClient.collectText(client.runTurn(thread.id, "hello"));
  await client.close();
  await server.shutdown();
  return text;
}

export function itemOf(event: ServerEvent): ThreadItem | undefined {
  return event.method === "item/completed" ? event.params.item : undefined;
}
`,
  "src/protocol.ts": `
import type { ClientRequestResult, Thread, ThreadItem, Turn } from "agent-app-server/client";
import {
  clientRequests,
  schemas,
  serverNotifications,
  type ClientRequestParams,
  type ItemCompletedNotification,
  type ServerNotification,
  type TurnStartParams,
} from "agent-app-server/protocol";
import { startMockModel } from "agent-app-server/testing";

export const start: TurnStartParams = { threadId: "t", input: [{ type: "text", text: "hi" }] };
export const sameStart: ClientRequestParams<"turn/start"> = start;
// @ts-expect-error a wrong field type must not compile (the types are not \`any\`)
export const wrong: TurnStartParams = { threadId: 1, input: [] };

export function parseItem(value: unknown): ThreadItem {
  return schemas.ThreadItem.parse(value);
}
export function turnOf(value: unknown): Turn {
  return serverNotifications["turn/completed"].params.parse(value).turn;
}
export function threadOf(result: ClientRequestResult<"thread/start">): Thread {
  return clientRequests["thread/start"].result.parse(result).thread;
}
export function completed(notification: ServerNotification): ItemCompletedNotification | undefined {
  return notification.method === "item/completed" ? notification.params : undefined;
}
export const mock: typeof startMockModel = startMockModel;
`,
};

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    types: ["node"],
    noEmit: true,
  },
  include: ["src/*.ts"],
};

let dir: string;

beforeAll(() => {
  if (!existsSync(path.join(ROOT, "dist/index.d.ts"))) throw new Error("build first: npm run build");
  dir = mkdtempSync(path.join(os.tmpdir(), "aas-consumer-"));
  mkdirSync(path.join(dir, "node_modules/@types"), { recursive: true });
  mkdirSync(path.join(dir, "src"));
  symlinkSync(ROOT, path.join(dir, "node_modules/agent-app-server"), "dir");
  symlinkSync(path.join(ROOT, "node_modules/@types/node"), path.join(dir, "node_modules/@types/node"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  for (const [file, text] of Object.entries(CONSUMER_FILES)) writeFileSync(path.join(dir, file), text);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a TypeScript consumer of the package", () => {
  it("type-checks against the built declarations under strict, exactOptionalPropertyTypes and no skipLibCheck, loading only the public declarations", () => {
    let output: string;
    try {
      output = execFileSync(process.execPath, [TSC, "-p", dir, "--listFiles", "--extendedDiagnostics"], { cwd: dir, encoding: "utf8" });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      const errors = `${stdout ?? ""}${stderr ?? ""}`.split("\n").filter((line) => /error TS\d+/.test(line) || line.startsWith("  "));
      throw new Error(`the consumer does not type-check:\n${errors.join("\n")}`);
    }
    // What made it slow (34 s, 680 MB): the AppServer class and the zod-inferred protocol registry
    // pulled the server's internals and hundreds of nested zod generics into every consumer.
    const files = output.split("\n").filter((line) => line.endsWith(".d.ts"));
    const ours = files.filter((file) => file.startsWith(ROOT + "/dist/")).map((file) => path.relative(ROOT, file));
    expect(ours).not.toContain("dist/server/appServer.d.ts");
    expect(ours).not.toContain("dist/protocol/methods.d.ts");
    expect(files.some((file) => file.includes("@modelcontextprotocol"))).toBe(false);
    // The checker's type count is the machine-independent measure of its work: 455k before, ~115k now.
    const types = Number(/^Types:\s+(\d+)/m.exec(output)?.[1]);
    expect(types).toBeGreaterThan(0);
    expect(types).toBeLessThan(200_000);
  }, 60_000);

  it("resolves the exports: ./protocol at run time and ./schema/*", async () => {
    const require = createRequire(path.join(dir, "package.json"));
    expect(require.resolve("agent-app-server/schema/ThreadStartParams.json")).toBe(path.join(ROOT, "schema/ThreadStartParams.json"));
    const protocol = (await import(pathToFileURL(require.resolve("agent-app-server/protocol")).href)) as typeof import("../../src/protocol/index.js");
    expect(protocol.schemas.ThreadItem.safeParse({ type: "plan", id: "p", text: "t" }).success).toBe(true);
    expect(Object.keys(protocol.clientRequests)).toContain("turn/start");
  });
});
