import { readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/runtime/logger.js";
import { isJsonObject } from "../../src/runtime/jsonObject.js";
import { ThreadRecord } from "../../src/threads/records.js";
import { readThreadFile, readThreadHistory } from "../../src/threads/threadFile.js";
import { ThreadHistory } from "../../src/threads/threadHistory.js";
import { serializeSliced } from "../../src/transport/slicedJson.js";

/**
 * Reading a thread file reads it in pieces, folds each record as it is parsed, and rebuilds turn
 * and usage records without zod. That must leave what a client sees unchanged: each file here is
 * read by the new reader and by the reader as it was before (kept below as the reference), and the
 * history each gives must serialize to the same bytes.
 */
const THREAD = "01a22035-90d1-7000-a710-35b79cd8ca42";
const AT = 1_795_853_249_864;

let dir: string;
beforeAll(() => void (dir = mkdtempSync(path.join(os.tmpdir(), "aas-thread-read-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A logger that keeps the warnings. */
function recordingLogger(): { logger: Logger; warnings: unknown[] } {
  const warnings: unknown[] = [];
  return { logger: { warn: (fields: unknown, message: string) => void warnings.push([fields, message]) } as unknown as Logger, warnings };
}

function writeThread(name: string, lines: readonly string[], tail = "\n"): string {
  const file = path.join(dir, name);
  writeFileSync(file, lines.join("\n") + tail);
  return file;
}

const line = (record: object) => JSON.stringify(record);

/** The reader before this change: every line parsed, content records trusted, the rest through the schema; then the fold. */
function referenceRead(file: string, logger: Logger): { history: ThreadHistory; intactBytes: number; torn: boolean } {
  const bytes = readFileSync(file);
  const records: ThreadRecord[] = [];
  let start = 0;
  let intactBytes = 0;
  let torn = false;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const record = referenceParse(bytes.subarray(start, end).toString("utf8"));
    if (newline === -1) {
      if (record) {
        records.push(record);
        intactBytes = bytes.length;
      } else {
        torn = true;
        logger.warn({ path: file, bytes: bytes.length - start }, "thread file ends in a torn line; recovered the records before it");
      }
      break;
    }
    if (record) records.push(record);
    else if (end > start) logger.warn({ path: file, offset: start }, "skipped an unreadable line in a thread file");
    start = newline + 1;
    intactBytes = start;
  }
  const first = records[0];
  if (first?.type !== "thread") throw new Error("a thread file must start with a thread record");
  const history = new ThreadHistory(first.identity, first.settings, first.at);
  for (const record of records.slice(1)) history.apply(record);
  for (const turn of history.turns) if (turn.status === "inProgress") turn.status = "interrupted";
  return { history, intactBytes, torn };
}

function referenceParse(text: string): ThreadRecord | undefined {
  if (text.trim().length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (isJsonObject(value) && typeof value.at === "number" && typeof value.turnId === "string") {
      if (value.type === "item" && isJsonObject(value.item) && typeof value.item.type === "string" && typeof value.item.id === "string") return value as ThreadRecord;
      if (value.type === "model" && Array.isArray(value.items) && value.items.every((item) => isJsonObject(item) && typeof item.type === "string")) return value as ThreadRecord;
    }
    const parsed = ThreadRecord.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What a client can see of a history: the turns as `thread/resume` serializes them, and the rest as JSON. */
async function visible(history: ThreadHistory): Promise<{ turns: string; rest: string }> {
  const turns = Buffer.concat(await serializeSliced({ thread: { turns: history.wireTurns() } })).toString("utf8");
  const { name, gitInfo, preview, updatedAtMs, settings, tokenUsage, goal, contextTokens } = history;
  const rest = JSON.stringify({ name, gitInfo, preview, updatedAtMs, settings, tokenUsage, goal, contextTokens, readState: history.readState(), model: history.modelItems() });
  return { turns, rest };
}

/** Reads `file` both ways and checks they agree, warnings included; returns the new reader's result. */
async function readBothWays(file: string) {
  const before = recordingLogger();
  const after = recordingLogger();
  const reference = referenceRead(file, before.logger);
  const read = await readThreadHistory(file, after.logger);
  const [expected, actual] = [await visible(reference.history), await visible(read.history)];
  expect(actual.turns).toBe(expected.turns);
  expect(actual.turns).toBe(JSON.stringify({ thread: { turns: reference.history.wireTurns() } }));
  expect(actual.rest).toBe(expected.rest);
  expect({ intactBytes: read.intactBytes, torn: read.torn }).toEqual({ intactBytes: reference.intactBytes, torn: reference.torn });
  expect(after.warnings).toEqual(before.warnings);
  return { read, warnings: after.warnings };
}

const settings = { model: "gpt-5.5", modelProvider: "mock", cwd: "/tmp/ws", approvalPolicy: "never", approvalsReviewer: "user", sandbox: { type: "dangerFullAccess" }, reasoningEffort: null, reasoningSummary: null, serviceTier: null, baseInstructions: null, developerInstructions: null };
const threadLine = line({
  type: "thread",
  at: AT,
  identity: { id: THREAD, sessionId: THREAD, createdAtMs: AT, forkedFromId: null, source: "vscode", threadSource: null, cliVersion: "0.1.0", originator: "test" },
  settings,
});
const times = { startedAtMs: AT + 1, completedAtMs: AT + 2 };
/** Text that JSON escapes every way it can: quotes, backslashes, controls, a lone surrogate; and text it leaves alone. */
const AWKWARD = 'quote " backslash \\ tab \t nl \n esc \u001b[31m nul \u0000 lone \ud800 pair 😀 é ü 漢字 \u2028 </script>';

/** One item of every type, each with the fields the server writes, in its order. */
const ALL_ITEMS = [
  { type: "userMessage", id: "i-user", clientId: null, content: [{ type: "text", text: `Look at this: ${AWKWARD}`, text_elements: [] }], ...times },
  { type: "agentMessage", id: "i-agent", text: `Done. ${AWKWARD}`, phase: "final_answer", memoryCitation: null, delivery: null, questions: [{ title: "Which?", options: ["a", "b"] }], moderation: null, ...times },
  { type: "plan", id: "i-plan", text: "1. read\n2. write", ...times },
  { type: "reasoning", id: "i-reasoning", summary: ["**Thinking** about it"], content: [AWKWARD], ...times },
  {
    type: "commandExecution", id: "i-command", pluginId: null, scriptPath: null, command: "/bin/bash -lc 'seq 1 3'", cwd: "/tmp/ws", processId: "4242", source: "agent",
    commandActions: [{ type: "unknown", command: "seq 1 3" }, { type: "read", command: "cat a", name: "a", path: "/tmp/ws/a" }, { type: "search", command: "rg x", query: "x", path: null }],
    aggregatedOutput: `1\n2\n3\n${AWKWARD}`, status: "completed", exitCode: 0, durationMs: 12, ...times,
  },
  { type: "fileChange", id: "i-patch", changes: [{ path: "/tmp/ws/a", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-a\n+b\n" }, { path: "/tmp/ws/b", kind: { type: "add" }, diff: "+x\n" }], status: "completed", ...times },
  { type: "mcpToolCall", id: "i-mcp", server: "docs", tool: "search", status: "completed", arguments: { q: AWKWARD, n: 3, nested: [1.5, -0.25, 1e21, null, true] }, result: { content: [{ type: "text", text: "hit" }], structuredContent: { hits: 1 } }, error: null, durationMs: 40, ...times },
  { type: "dynamicToolCall", id: "i-dynamic", namespace: null, tool: "lookup", arguments: ["x", 2], status: "failed", contentItems: [{ type: "inputText", text: "no" }], success: false, durationMs: 3, ...times },
  { type: "webSearch", id: "i-web", query: "node json", action: { type: "search", query: "node json", queries: ["node json", "v8 json"] }, ...times },
  { type: "imageView", id: "i-image", path: "/tmp/ws/shot.png", ...times },
  { type: "enteredReviewMode", id: "i-review-in", review: "current changes", ...times },
  { type: "exitedReviewMode", id: "i-review-out", review: `No findings. ${AWKWARD}`, ...times },
  { type: "contextCompaction", id: "i-compaction", ...times },
];

describe("reading a thread file", () => {
  it("gives the same history as before for a thread with every item type, byte for byte", async () => {
    const t1 = "turn-1";
    const t2 = "turn-2";
    const t3 = "turn-3";
    const file = writeThread("every-item.jsonl", [
      threadLine,
      line({ type: "settings", at: AT + 1, settings: { model: "gpt-5.4" } }),
      line({ type: "name", at: AT + 2, name: `named ${AWKWARD}` }),
      line({ type: "gitInfo", at: AT + 3, gitInfo: { sha: "abc", branch: "main", originUrl: null } }),
      line({ type: "turnStarted", at: AT + 10, turnId: t1 }),
      ...ALL_ITEMS.map((item, index) => line({ type: "item", at: AT + 11 + index, turnId: t1, item })),
      line({ type: "model", at: AT + 30, turnId: t1, items: [{ type: "message", role: "user", content: [{ type: "input_text", text: AWKWARD }] }, { type: "function_call", callId: "c1", name: "exec_command", arguments: '{"cmd":"seq 1 3"}' }] }),
      line({ type: "usage", at: AT + 31, turnId: t1, usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningOutputTokens: 1, totalTokens: 15, cacheWriteInputTokens: 3 } }),
      line({ type: "usage", at: AT + 32, turnId: t1, usage: { inputTokens: 7, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 8, extra: 9 } }),
      // The same item again, changed: it replaces the first in place.
      line({ type: "item", at: AT + 33, turnId: t1, item: { ...ALL_ITEMS[1], text: "Changed." } }),
      line({ type: "turnCompleted", at: AT + 40, turnId: t1, status: "completed", error: null }),
      line({ type: "read", at: AT + 41 }),
      line({ type: "goal", at: AT + 42, goal: { threadId: THREAD, objective: "ship", status: "active", tokenBudget: null, tokensUsed: 3, timeUsedSeconds: 4, createdAt: 1, updatedAt: 2 } }),
      line({ type: "turnStarted", at: AT + 50, turnId: t2, extra: "ignored" }),
      // Written by hand: spaces, escapes JSON.stringify would not write, a field no schema has.
      `{ "type": "item", "at": ${AT + 51}, "turnId": "${t2}", "item": { "type": "agentMessage", "id": "i-hand", "text": "\\u0041\\/b", "phase": null, "custom": [1.50, 2e3] } }`,
      line({ type: "usage", at: AT + 52, turnId: t2, usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 2.5 } }),
      line({ type: "turnCompleted", at: AT + 53, turnId: t2, status: "failed", error: { message: "the model failed", codexErrorInfo: "other", additionalDetails: null, extra: 1 } }),
      line({ type: "turnStarted", at: AT + 60, turnId: t3 }),
      line({ type: "item", at: AT + 61, turnId: t3, item: ALL_ITEMS[0] }),
      line({ type: "turnCompleted", at: AT + 62, turnId: "no-such-turn", status: "completed" }),
    ]);
    const { read, warnings } = await readBothWays(file);
    // The usage with 2.5 tokens.
    expect(warnings).toHaveLength(1);
    expect(read.history.turns.map((turn) => [turn.id, turn.status, turn.items.length])).toEqual([
      [t1, "completed", ALL_ITEMS.length],
      [t2, "failed", 1],
      [t3, "interrupted", 1],
    ]);
    expect(new Set(read.history.turns[0]!.items.map((item) => item.type)).size).toBe(13);
  });

  it("skips damaged lines and drops a torn last line as before, keeping every intact record", async () => {
    const file = writeThread(
      "damaged.jsonl",
      [
        threadLine,
        line({ type: "turnStarted", at: AT + 1, turnId: "t" }),
        '{"type":"item","at":1,"turnId":"t","item":{"type":"agentMessage","id":"x","te',
        line({ type: "item", at: AT + 2, turnId: "t", item: ALL_ITEMS[1] }),
        "not json at all",
        "",
        line({ type: "turnCompleted", at: AT + 3, turnId: "t", status: "exploded", error: null }),
        '{"type":"turnStarted","at":1e400,"turnId":"t2"}',
        line({ type: "usage", at: AT + 4, turnId: "t", usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, reasoningOutputTokens: 0, totalTokens: 2, cacheWriteInputTokens: null } }),
        line({ type: "turnCompleted", at: AT + 5, turnId: "t", status: "completed", error: "not an object" }),
        line({ type: "item", at: AT + 6, turnId: "t", item: ALL_ITEMS[2] }),
      ],
      '\n{"type":"turnCompleted","at":1,"tu',
    );
    const { read, warnings } = await readBothWays(file);
    expect(read.torn).toBe(true);
    expect(read.intactBytes).toBe(readFileSync(file).lastIndexOf(0x0a) + 1);
    expect(warnings.map((warning) => (warning as [unknown, string])[1])).toEqual([
      ...Array(6).fill("skipped an unreadable line in a thread file"),
      "thread file ends in a torn line; recovered the records before it",
    ]);
    expect(read.history.turns.map((turn) => [turn.status, turn.items.map((item) => item.id)])).toEqual([["interrupted", ["i-agent", "i-plan"]]]);
  });

  it("reads a file of many pieces the same: lines and characters across their ends, a line longer than a piece", async () => {
    const lines = [threadLine, line({ type: "turnStarted", at: AT, turnId: "t" })];
    // ~6 MB of lines of odd lengths, every character of them two to four bytes long, so pieces end inside lines and characters.
    for (let i = 0; lines.length < 12_000; i++) {
      const text = "é漢😀".repeat(5 + (i % 97)) + i;
      lines.push(line({ type: "item", at: AT + i, turnId: "t", item: { ...ALL_ITEMS[1], id: `i-${i}`, text } }));
      if (i % 3_001 === 0) lines.push("garbage at a random place");
    }
    // A line three pieces long (one command's whole output).
    lines.push(line({ type: "item", at: AT, turnId: "t", item: { ...ALL_ITEMS[4], aggregatedOutput: "ü漢".repeat(1_200_000) } }));
    lines.push(line({ type: "turnCompleted", at: AT + 1, turnId: "t", status: "completed", error: null }));
    const file = writeThread("pieces.jsonl", lines, '\n{"type":"usage","at":1,"turnId":"t","usage":{"inputTo');
    const { read, warnings } = await readBothWays(file);
    expect(readFileSync(file).length).toBeGreaterThan(8 * 1024 * 1024);
    expect(read.torn).toBe(true);
    expect(warnings).toHaveLength(5);
    expect(read.history.turns[0]!.items).toHaveLength(lines.filter((text) => text.startsWith('{"type":"item"')).length);
  });

  it("refuses a file that does not start with its thread record, still reporting each bad line", async () => {
    const file = writeThread("headless.jsonl", [line({ type: "turnStarted", at: AT, turnId: "t" }), threadLine, "garbage"]);
    const { logger, warnings } = recordingLogger();
    await expect(readThreadHistory(file, logger)).rejects.toThrow("a thread file must start with a thread record");
    expect(warnings).toHaveLength(1);
  });

  it("rebuilds turn and usage records exactly as the schema does, and takes none it refuses", async () => {
    const usage = { inputTokens: 10, cachedInputTokens: 1, outputTokens: 5, reasoningOutputTokens: 2, totalTokens: 15 };
    const candidates: Array<Record<string, unknown>> = [
      { type: "turnStarted", at: AT, turnId: "t" },
      { turnId: "t", at: 0.5, type: "turnStarted", more: { x: 1 } },
      { type: "turnStarted", at: "1", turnId: "t" },
      { type: "turnStarted", at: AT },
      ...["completed", "interrupted", "failed", "inProgress", "unknown"].flatMap((status) => [
        { type: "turnCompleted", at: AT, turnId: "t", status, error: null },
        { type: "turnCompleted", at: AT, turnId: "t", status },
      ]),
      { type: "turnCompleted", at: AT, turnId: "t", status: "failed", error: { message: "m" } },
      { type: "turnCompleted", at: AT, turnId: "t", status: "failed", error: 3 },
      { type: "usage", at: AT, turnId: "t", usage },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, cacheWriteInputTokens: 4, extra: 1 } },
      { type: "usage", at: AT, turnId: "t", usage: { cacheWriteInputTokens: 0, ...usage } },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, totalTokens: -0 } },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, totalTokens: 2 ** 53 } },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, inputTokens: 1.5 } },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, outputTokens: "5" } },
      { type: "usage", at: AT, turnId: "t", usage: { ...usage, reasoningOutputTokens: undefined } },
      { type: "usage", at: AT, turnId: "t", usage: [1, 2] },
      { type: "usage", at: AT, turnId: 5, usage },
    ];
    const file = writeThread("shapes.jsonl", candidates.map(line));
    const got: string[] = [];
    await readThreadFile(file, recordingLogger().logger, (record) => void got.push(JSON.stringify(record)));
    const expected = candidates.flatMap((candidate) => {
      const parsed = ThreadRecord.safeParse(JSON.parse(JSON.stringify(candidate)));
      return parsed.success ? [JSON.stringify(parsed.data)] : [];
    });
    expect(got).toEqual(expected);
    expect(expected.length).toBeGreaterThan(8);
    expect(expected.length).toBeLessThan(candidates.length);
  });
});
