import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DETERMINISTIC_EPOCH_MS } from "../../src/runtime/clock.js";
import { loadDeterministicRuntime } from "../../src/runtime/deterministicState.js";

describe("loadDeterministicRuntime", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  });

  it("starts at the epoch when the saved state is missing, broken or not an object", async () => {
    for (const text of [null, "{", "null", "[]", "7"]) {
      const home = mkdtempSync(path.join(os.tmpdir(), "aas-det-"));
      homes.push(home);
      if (text !== null) writeFileSync(path.join(home, "deterministic-state.json"), text);
      const runtime = await loadDeterministicRuntime(home);
      expect(runtime.clock.nowMs(), String(text)).toBeGreaterThanOrEqual(DETERMINISTIC_EPOCH_MS);
    }
  });

  it("goes on where the saved state stopped", async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), "aas-det-"));
    homes.push(home);
    const first = await loadDeterministicRuntime(home);
    first.clock.nowMs();
    const stopped = first.clock.nowMs();
    await first.save();
    expect((await loadDeterministicRuntime(home)).clock.nowMs()).toBeGreaterThan(stopped);
  });
});
