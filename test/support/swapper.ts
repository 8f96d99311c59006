import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";

// Renames `sw` back and forth between a real directory and a symlink out of the roots, as a
// hostile sandboxed job would; bounded by a deadline and a count in case the test dies first.
const SCRIPT = `
const fs = require("fs");
const [dir, deadlineMs] = process.argv.slice(1);
const sw = dir + "/sw", real = dir + "/real", link = dir + "/link";
const end = Date.now() + Number(deadlineMs);
const tryRename = (from, to) => { try { fs.renameSync(from, to); } catch {} };
for (let n = 0; n < 50000000 && Date.now() < end; n++) {
  // A writer that found "sw" missing mid-swap may have made a directory there: clear it, or no swap could go on.
  if (fs.existsSync(real) && fs.existsSync(link)) { try { fs.rmSync(sw, { recursive: true, force: true }); } catch {} }
  tryRename(real, sw);
  if (n === 0) process.stdout.write("ready\\n");
  tryRename(sw, real);
  tryRename(link, sw);
  tryRename(sw, link);
}
`;

/** A child process swapping `<dir>/sw` between a directory (holding `file` with `inside`) and a symlink to `outside`. */
export interface Swapper {
  /** `<dir>/sw`, the path that keeps changing. */
  readonly swapped: string;
  /** Kills the child and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts swapping `<dir>/sw`; resolves once the child has renamed at least once (bounded by `timeoutMs`). */
export async function startSwapper(dir: string, outside: string, timeoutMs = 10_000, lifetimeMs = 120_000): Promise<Swapper> {
  mkdirSync(path.join(dir, "real"));
  symlinkSync(outside, path.join(dir, "link"));
  const child: ChildProcess = spawn(process.execPath, ["-e", SCRIPT, dir, String(lifetimeMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGKILL");
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the swapper did not start in time")), timeoutMs);
      child.stdout!.once("data", () => {
        clearTimeout(timer);
        resolve();
      });
      child.once("exit", () => reject(new Error("the swapper exited before it started")));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { swapped: path.join(dir, "sw"), stop };
}
