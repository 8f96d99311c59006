/**
 * Finding what a command started, however it detached. Every command gets an environment variable
 * with an id of its own, which its children inherit through `&`, `nohup`, `setsid`, double forks and
 * `disown` alike; ending the command's owner kills every process that still carries the id. (A
 * sandboxed command is also in a PID namespace of its own; this covers full access too.)
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** The variable that carries a command's id into everything it starts. */
export const COMMAND_MARKER = "AGENT_APP_SERVER_COMMAND";

/** A new command id. */
export function newCommandMarker(): string {
  return randomBytes(12).toString("hex");
}

// A process may fork while the scan runs: scan again until a round finds nothing (within reason).
const MAX_ROUNDS = 5;

/** SIGKILLs every process whose environment carries `marker`; returns how many were killed. Without /proc, none. */
export function killMarked(marker: string): number {
  const needle = Buffer.from(`${COMMAND_MARKER}=${marker}\0`);
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let found = 0;
    for (const pid of processIds()) {
      if (!carries(pid, needle)) continue;
      try {
        process.kill(pid, "SIGKILL");
        found++;
      } catch {
        // Gone already, or not ours to kill.
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}

function processIds(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

function carries(pid: number, needle: Buffer): boolean {
  try {
    // environ is NUL-separated; a leading NUL makes the first variable match like the others.
    return Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`)]).includes(Buffer.concat([Buffer.from([0]), needle]));
  } catch {
    return false;
  }
}
