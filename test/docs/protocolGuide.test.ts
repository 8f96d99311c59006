import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ErrorCode } from "../../src/protocol/jsonrpc.js";
import { clientNotifications, clientRequests, serverNotifications, serverRequests } from "../../src/protocol/methods.js";
import { checkAgainst, checkServerMessage, REFERENCE_DIR, referenceAvailable, requestParamsFile } from "../conformance/referenceSchema.js";

/**
 * docs/PROTOCOL.md must stay true: every method of the registry has a heading and an example there,
 * every example message is valid (our zod schemas and the Codex reference), and every block quoted
 * from a golden transcript still appears in that transcript, in order. The conventions checked here
 * are described at the top of the guide ("How to read the examples").
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const GUIDE_FILE = path.join(ROOT, "docs/PROTOCOL.md");

type Direction = "c2s" | "s2c";

interface ExampleLine {
  /** 1-based line number in the guide. */
  readonly at: number;
  readonly dir: Direction;
  /** The parsed message, or the text of a `→ RAW` line. */
  readonly msg: unknown;
  readonly raw: boolean;
}

interface ExampleBlock {
  /** 1-based line number of the opening fence. */
  readonly at: number;
  /** `fixtures/NAME.jsonl` for a quoted block, null for a hand-written one, undefined when unmarked. */
  readonly from: string | null | undefined;
  readonly lines: ExampleLine[];
  readonly problems: string[];
}

type Message = Record<string, any>;

const FROM_MARKER = /^<!-- from (fixtures\/[\w.-]+\.jsonl) -->$/;
const HAND_MARKER = /^<!-- hand-written -->$/;

/** The `jsonl` blocks of the guide, with the marker before each and its lines parsed. */
function exampleBlocks(text: string): ExampleBlock[] {
  const lines = text.split("\n");
  const blocks: ExampleBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\S*)\s*$/.exec(lines[index]!);
    if (!fence) continue;
    let end = index + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (fence[1] === "jsonl") {
      let before = index - 1;
      while (before >= 0 && lines[before]!.trim() === "") before--;
      const marker = before >= 0 ? lines[before]!.trim() : "";
      const from = FROM_MARKER.exec(marker)?.[1] ?? (HAND_MARKER.test(marker) ? null : undefined);
      const block: ExampleBlock = { at: index + 1, from, lines: [], problems: [] };
      if (from === undefined) block.problems.push(`line ${index + 1}: example block without <!-- from fixtures/….jsonl --> or <!-- hand-written --> before it`);
      for (let k = index + 1; k < end; k++) parseLine(lines[k]!, k + 1, block);
      blocks.push(block);
    }
    index = end;
  }
  return blocks;
}

function parseLine(line: string, at: number, block: ExampleBlock): void {
  if (line.trim() === "" || line === "…" || line.startsWith("… ")) return;
  const arrow = /^(→|←) (.*)$/.exec(line);
  if (!arrow) {
    block.problems.push(`line ${at}: not "→ ", "← ", "→ RAW " or "…": ${line.slice(0, 80)}`);
    return;
  }
  const dir: Direction = arrow[1] === "→" ? "c2s" : "s2c";
  const body = arrow[2]!;
  if (dir === "c2s" && body.startsWith("RAW ")) {
    block.lines.push({ at, dir, msg: body.slice(4), raw: true });
    return;
  }
  try {
    block.lines.push({ at, dir, msg: JSON.parse(body), raw: false });
  } catch (error) {
    block.problems.push(`line ${at}: not JSON: ${(error as Error).message}`);
  }
}

// Golden transcripts replace machine-specific values with placeholders; validate with plausible values.
const PLACEHOLDERS: Record<string, string> = {
  "{WORKSPACE}": "/home/me/app",
  "{HOME}": "/home/me/.agent-app-server",
  "{ROOT}": "/tmp/root",
  "{USER_HOME}": "/home/me",
};

function concrete(value: unknown): unknown {
  if (typeof value === "string") return Object.entries(PLACEHOLDERS).reduce((text, [from, to]) => text.split(from).join(to), value);
  if (Array.isArray(value)) return value.map(concrete);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, concrete(element)]));
  return value;
}

const KNOWN_CODES = new Set<number>(Object.values(ErrorCode));

function lookup<T>(registry: Record<string, T>, method: string): T | undefined {
  return Object.hasOwn(registry, method) ? registry[method] : undefined;
}

function zodProblems(what: string, schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${what}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
}

/** The reference's schema file for the response to server request `typeName` (e.g. `DynamicToolCallResponse.json`). */
function referenceResponseFile(typeName: string): string | undefined {
  for (const dir of [".", "v2", "v1"]) {
    const file = path.join(dir, `${typeName}Response.json`);
    if (existsSync(path.join(REFERENCE_DIR, file))) return file;
  }
  return undefined;
}

/** Every problem with the messages of one block, each naming its guide line. */
function messageProblems(block: ExampleBlock): string[] {
  const problems: string[] = [];
  const clientIds = new Map<string, { method: string; answeredWithError: boolean }>();
  const serverIds = new Map<string, string>();
  const key = (id: unknown) => JSON.stringify(id);
  // Which client requests the block answers with an error: their params may be wrong on purpose.
  const errorAnswers = new Map<string, number>();
  for (const line of block.lines) {
    const msg = line.msg as Message;
    if (line.dir === "s2c" && !line.raw && msg && typeof msg === "object" && "error" in msg && !("method" in msg)) errorAnswers.set(key(msg.id), msg.error?.code);
  }
  for (const line of block.lines) {
    const where = `line ${line.at}`;
    if (line.raw) continue;
    const msg = concrete(line.msg) as Message;
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
      problems.push(`${where}: not a JSON object`);
      continue;
    }
    const isRequest = typeof msg.method === "string" && "id" in msg;
    const isNotification = typeof msg.method === "string" && !("id" in msg);
    const isResponse = !("method" in msg) && "id" in msg && ("result" in msg || "error" in msg);
    if (line.dir === "c2s") {
      if (isRequest) {
        if (clientIds.has(key(msg.id))) problems.push(`${where}: request id ${key(msg.id)} used twice in one block`);
        const errorCode = errorAnswers.get(key(msg.id));
        clientIds.set(key(msg.id), { method: msg.method, answeredWithError: errorCode !== undefined });
        const spec = lookup(clientRequests, msg.method);
        if (!spec) {
          if (errorCode !== ErrorCode.MethodNotFound) problems.push(`${where}: ${msg.method} is not a client request we implement (and is not answered -32601 here)`);
          continue;
        }
        if (errorCode === ErrorCode.InvalidParams) continue; // invalid on purpose
        problems.push(...zodProblems(`${where}: ${msg.method} params`, spec.params, msg.params ?? {}));
        // Codex requires params where we accept them omitted (a documented difference).
        const file = referenceAvailable && msg.params !== undefined ? requestParamsFile(msg.method) : undefined;
        if (file) problems.push(...checkAgainst(file, msg.params).map((problem) => `${where}: ${problem}`));
      } else if (isNotification) {
        const spec = lookup(clientNotifications, msg.method);
        if (!spec) problems.push(`${where}: ${msg.method} is not a client notification`);
        else problems.push(...zodProblems(`${where}: ${msg.method} params`, spec.params, msg.params));
      } else if (isResponse) {
        const method = serverIds.get(key(msg.id));
        if (!method) {
          problems.push(`${where}: answers server request id ${key(msg.id)}, which is not asked earlier in the block`);
          continue;
        }
        if ("error" in msg) continue;
        const spec = serverRequests[method as keyof typeof serverRequests];
        problems.push(...zodProblems(`${where}: ${method} result`, spec.result, msg.result));
        const file = referenceAvailable ? referenceResponseFile(spec.typeName) : undefined;
        if (file) problems.push(...checkAgainst(file, msg.result).map((problem) => `${where}: ${problem}`));
      } else {
        problems.push(`${where}: neither a request, a notification nor a response`);
      }
      continue;
    }
    // Server → client.
    if (isRequest) {
      const spec = lookup(serverRequests, msg.method);
      serverIds.set(key(msg.id), msg.method);
      if (!spec) problems.push(`${where}: ${msg.method} is not a server request in the registry`);
      else problems.push(...zodProblems(`${where}: ${msg.method} params`, spec.params, msg.params));
    } else if (isNotification) {
      const spec = lookup(serverNotifications, msg.method);
      if (!spec) problems.push(`${where}: ${msg.method} is not a server notification in the registry`);
      else problems.push(...zodProblems(`${where}: ${msg.method} params`, spec.params, msg.params));
      if (!Number.isInteger(msg.emittedAtMs)) problems.push(`${where}: notification ${msg.method} lacks an integer emittedAtMs`);
    } else if (isResponse) {
      const request = clientIds.get(key(msg.id));
      if ("error" in msg) {
        if (!KNOWN_CODES.has(msg.error?.code)) problems.push(`${where}: error code ${msg.error?.code} is not one the guide documents`);
        if (typeof msg.error?.message !== "string") problems.push(`${where}: error without a message`);
        if (msg.id !== null && !request) problems.push(`${where}: answers request id ${key(msg.id)}, which is not sent earlier in the block`);
      } else {
        if (!request) {
          problems.push(`${where}: answers request id ${key(msg.id)}, which is not sent earlier in the block`);
          continue;
        }
        const spec = lookup(clientRequests, request.method);
        if (!spec) problems.push(`${where}: a result for ${request.method}, which we do not implement`);
        else problems.push(...zodProblems(`${where}: ${request.method} result`, spec.result, msg.result));
      }
    } else {
      problems.push(`${where}: neither a request, a notification nor a response`);
      continue;
    }
    if (referenceAvailable) {
      problems.push(...checkServerMessage(msg, (id) => clientIds.get(key(id))?.method).map((problem) => `${where}: ${problem}`));
    }
  }
  // Our emittedAtMs check and the reference check may say the same thing.
  return [...new Set(problems)];
}

/** Lines of a quoted block that are not in its golden transcript, in the same order. */
function goldenProblems(block: ExampleBlock): string[] {
  const file = path.join(ROOT, block.from!);
  if (!existsSync(file)) return [`line ${block.at}: ${block.from} does not exist`];
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { dir: string; msg?: unknown });
  const canonical = entries.map((entry) => (entry.dir === "meta" ? "" : `${entry.dir} ${JSON.stringify(entry.msg)}`));
  const problems: string[] = [];
  let cursor = 0;
  for (const line of block.lines) {
    const wanted = line.raw
      ? [`c2s ${JSON.stringify(line.msg)}`, `c2s ${JSON.stringify(`${line.msg as string}\n`)}`]
      : [`${line.dir} ${JSON.stringify(line.msg)}`];
    const found = canonical.findIndex((entry, index) => index >= cursor && wanted.includes(entry));
    if (found !== -1) {
      cursor = found + 1;
      continue;
    }
    const anywhere = canonical.some((entry) => wanted.includes(entry));
    problems.push(
      anywhere
        ? `line ${line.at}: in ${block.from}, but not after the block's previous line`
        : `line ${line.at}: no longer in ${block.from} (regenerated golden? quote the new line)`,
    );
  }
  return problems;
}

const guide = readFileSync(GUIDE_FILE, "utf8");
const blocks = exampleBlocks(guide);
const headings = new Set([...guide.matchAll(/^#{2,4} `([^`]+)`\s*$/gm)].map((match) => match[1]!));

/** Requests this server always refuses, as Codex does without a ChatGPT account: their example is the error. */
const ALWAYS_REFUSED = new Set(["account/rateLimits/read"]);

/** Methods with an example of the kind each registry needs. */
function exampleCoverage() {
  const answeredClientRequests = new Set<string>();
  const answeredServerRequests = new Set<string>();
  const serverNotificationsSent = new Set<string>();
  const clientNotificationsSent = new Set<string>();
  for (const block of blocks) {
    const clientIds = new Map<string, string>();
    const serverIds = new Map<string, string>();
    for (const line of block.lines) {
      if (line.raw) continue;
      const msg = line.msg as Message;
      if (!msg || typeof msg !== "object") continue;
      const id = JSON.stringify(msg.id);
      if (typeof msg.method === "string") {
        if (line.dir === "c2s" && "id" in msg) clientIds.set(id, msg.method);
        else if (line.dir === "c2s") clientNotificationsSent.add(msg.method);
        else if ("id" in msg) serverIds.set(id, msg.method);
        else serverNotificationsSent.add(msg.method);
      } else if ("result" in msg) {
        const asked = line.dir === "s2c" ? clientIds.get(id) : serverIds.get(id);
        if (asked) (line.dir === "s2c" ? answeredClientRequests : answeredServerRequests).add(asked);
      } else if ("error" in msg && line.dir === "s2c" && ALWAYS_REFUSED.has(clientIds.get(id) ?? "")) {
        answeredClientRequests.add(clientIds.get(id)!);
      }
    }
  }
  return { answeredClientRequests, answeredServerRequests, serverNotificationsSent, clientNotificationsSent };
}

if (!referenceAvailable) {
  console.warn(`protocol guide: no Codex reference schema at ${REFERENCE_DIR}; examples are checked against our schemas only`);
}

describe("docs/PROTOCOL.md", () => {
  it("has example blocks", () => {
    expect(blocks.length).toBeGreaterThan(20);
  });

  it.each(blocks.map((block) => [`line ${block.at}${block.from ? ` (${block.from})` : block.from === null ? " (hand-written)" : ""}`, block] as const))(
    "example at %s is well-formed and valid",
    (_name, block) => {
      expect([...block.problems, ...messageProblems(block)]).toEqual([]);
    },
  );

  it.each(blocks.filter((block) => block.from).map((block) => [`line ${block.at} (${block.from})`, block] as const))(
    "example at %s still appears in its golden transcript",
    (_name, block) => {
      expect(goldenProblems(block)).toEqual([]);
    },
  );

  it("has a heading for every method in the registry", () => {
    const methods = [...Object.keys(clientRequests), ...Object.keys(clientNotifications), ...Object.keys(serverRequests), ...Object.keys(serverNotifications)];
    expect(methods.filter((method) => !headings.has(method)), "methods without a `#### \\`method\\`` heading in docs/PROTOCOL.md").toEqual([]);
  });

  it("has an example of every method in the registry", () => {
    const coverage = exampleCoverage();
    const missing = [
      ...Object.keys(clientRequests).filter((method) => !coverage.answeredClientRequests.has(method)).map((method) => `client request ${method} (with a result)`),
      ...Object.keys(serverRequests).filter((method) => !coverage.answeredServerRequests.has(method)).map((method) => `server request ${method} (with the client's result)`),
      ...Object.keys(serverNotifications).filter((method) => !coverage.serverNotificationsSent.has(method)).map((method) => `notification ${method}`),
      ...Object.keys(clientNotifications).filter((method) => !coverage.clientNotificationsSent.has(method)).map((method) => `client notification ${method}`),
    ];
    expect(missing, "methods without an example in docs/PROTOCOL.md").toEqual([]);
  });

  it("documents only methods that exist", () => {
    const known = new Set([...Object.keys(clientRequests), ...Object.keys(clientNotifications), ...Object.keys(serverRequests), ...Object.keys(serverNotifications)]);
    expect([...headings].filter((heading) => !known.has(heading)), "`#### \`method\`` headings naming no method of the registry").toEqual([]);
  });
});
