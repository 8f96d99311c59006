import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { DETERMINISTIC_EPOCH_MS, steppingClock, type Clock } from "./clock.js";
import { sequentialIdSource, type IdKind, type IdSource } from "./ids.js";
import { isJsonObject } from "./jsonObject.js";

const FILE = "deterministic-state.json";

/** Deterministic mode's clock and ids, and how to save where they stopped. */
export interface DeterministicRuntime {
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Records the clock and counters in the home, so a restarted server goes on without reusing ids or times. */
  save(): Promise<void>;
}

/** Starts deterministic mode where the last server on this home stopped (or at the epoch on a fresh home). */
export async function loadDeterministicRuntime(home: string): Promise<DeterministicRuntime> {
  const file = path.join(home, FILE);
  type Saved = { clockMs?: number; counters?: Partial<Record<IdKind, number>> };
  // A missing, broken or foreign file (`null`, an array) starts at the epoch, as a fresh home does.
  const saved = await readFile(file, "utf8")
    .then((text): Saved => {
      const value: unknown = JSON.parse(text);
      return isJsonObject(value) ? (value as Saved) : {};
    })
    .catch((): Saved => ({}));
  const clock = steppingClock(saved.clockMs ?? DETERMINISTIC_EPOCH_MS);
  const ids = sequentialIdSource(saved.counters ?? {});
  return {
    clock,
    ids,
    save: () => writeFile(file, JSON.stringify({ clockMs: clock.peekMs(), counters: ids.counters() }) + "\n"),
  };
}
