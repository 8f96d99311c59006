import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/runtime/logger.js";
import { readThreadHistory } from "../../src/threads/threadFile.js";

/**
 * A long thread's file (50,000 items are 60 MB) took over half a second to parse and fold in one
 * go, holding the event loop; reading it (each record folded as it is parsed) now shares it. A few
 * MB here are enough to need several slices.
 */
const ITEMS = 20_000;
const ITEMS_PER_TURN = 100;
const THREAD = "01a22035-90d1-7000-a710-35b79cd8ca42";

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "aas-thread-file-"));
  file = path.join(dir, "thread.jsonl");
  const thread = {
    type: "thread",
    at: 1,
    identity: { id: THREAD, sessionId: THREAD, createdAtMs: 1, forkedFromId: null, source: "vscode", threadSource: null, cliVersion: "0.1.0", originator: "test" },
    settings: { model: "m", modelProvider: "mock", cwd: "/tmp", approvalPolicy: "never", approvalsReviewer: "user", sandbox: { type: "dangerFullAccess" }, reasoningEffort: null, reasoningSummary: null, serviceTier: null, baseInstructions: null, developerInstructions: null },
  };
  const text = "The command printed the integers from 1 to 80, one per line. ".repeat(3);
  const lines = [JSON.stringify(thread)];
  for (let i = 0; i < ITEMS; i++) {
    const turnId = `turn-${Math.floor(i / ITEMS_PER_TURN)}`;
    if (i % ITEMS_PER_TURN === 0) lines.push(JSON.stringify({ type: "turnStarted", at: 2, turnId }));
    lines.push(JSON.stringify({ type: "item", at: 3, turnId, item: { type: "agentMessage", id: `item-${i}`, text, phase: null } }));
  }
  writeFileSync(file, lines.join("\n") + "\n");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const quiet = { warn: () => undefined } as unknown as Logger;

/** Runs `work` while counting turns of the event loop. */
async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  const counting = setInterval(() => turns++, 0);
  try {
    return { result: await work(), turns };
  } finally {
    clearInterval(counting);
  }
}

describe("reading a long thread file", () => {
  it("parses and folds every record while the event loop keeps running", async () => {
    const read = await countingTurns(() => readThreadHistory(file, quiet));
    expect(read.result.torn).toBe(false);
    expect(read.result.history.turns).toHaveLength(ITEMS / ITEMS_PER_TURN);
    expect(read.result.history.turns.reduce((sum, turn) => sum + turn.items.length, 0)).toBe(ITEMS);
    // It needs well over one slice, even on a fast machine: a loop held throughout would count no turn.
    expect(read.turns).toBeGreaterThan(0);
  });
});
