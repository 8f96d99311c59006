import { appendFileSync } from "node:fs";

/** How often the event loop is checked. */
const TICK_MS = 5;
/** Lateness of a tick past which the loop counts as having stalled. */
const STALL_MS = 20;

/**
 * Appends a line `{"endedAt": Unix ms, "ms": duration, "cpuMs": CPU time}` to `file` for each
 * event-loop stall over {@link STALL_MS} (a timer that fired that late): the server's own view for
 * `bench/stalls.mjs`, turned on by `AGENT_APP_SERVER_STALL_LOG`. The process's CPU time over the
 * stall tells work from waiting for a core on a busy machine. Written synchronously, but only after a stall.
 */
export function logStalls(file: string): void {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const late = now - last - TICK_MS;
    last = now;
    lastCpu = process.cpuUsage();
    if (late <= STALL_MS) return;
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    appendFileSync(file, JSON.stringify({ endedAt: Date.now(), ms: Math.round(late), cpuMs }) + "\n");
  }, TICK_MS);
  timer.unref();
}
