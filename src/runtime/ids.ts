import { randomBytes } from "node:crypto";
import type { Clock } from "./clock.js";

/** What an id names; deterministic ids count each kind on its own. */
export type IdKind = "thread" | "turn" | "item";

/** Makes ids; deterministic mode swaps the implementation. */
export interface IdSource {
  /** A UUIDv7: time-ordered, as Codex's thread and turn ids. */
  uuid(kind: IdKind): string;
}

const KIND_PREFIX: Readonly<Record<IdKind, string>> = { thread: "00000001", turn: "00000002", item: "00000003" };

/**
 * Deterministic mode's ids: sequential per kind, still valid UUIDv7 strings
 * (`00000001-0000-7000-8000-000000000001` is the first thread, `00000002-…` turns, `00000003-…` items).
 */
export function sequentialIdSource(start: Partial<Record<IdKind, number>> = {}): IdSource & { counters(): Record<IdKind, number> } {
  const counters: Record<IdKind, number> = { thread: 0, turn: 0, item: 0, ...start };
  return {
    counters: () => ({ ...counters }),
    uuid(kind) {
      const n = ++counters[kind];
      return `${KIND_PREFIX[kind]}-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
    },
  };
}

/**
 * UUIDv7 (RFC 9562) from the clock: 48-bit Unix ms, then random bits. Within one millisecond a
 * 12-bit counter in `rand_a` keeps ids made by this process strictly increasing.
 */
export function uuidV7Source(clock: Clock): IdSource {
  let lastMs = -1;
  let counter = 0;
  return {
    uuid() {
      let ms = clock.nowMs();
      if (ms <= lastMs) {
        counter++;
        if (counter > 0xfff) {
          lastMs++;
          counter = 0;
        }
        ms = lastMs;
      } else {
        lastMs = ms;
        counter = 0;
      }
      const bytes = randomBytes(16);
      bytes.writeUIntBE(ms, 0, 6);
      bytes[6] = 0x70 | (counter >> 8);
      bytes[7] = counter & 0xff;
      bytes[8] = 0x80 | (bytes[8]! & 0x3f);
      const hex = bytes.toString("hex");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
}
