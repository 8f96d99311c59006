import { execFileSync } from "node:child_process";
import { chownSync } from "node:fs";
import { programWorks } from "./programs.js";
import { CLI_PATH } from "./serverProcess.js";

/** The unprivileged uid and gid (nobody) a root test run also runs the server as. */
export const UNPRIVILEGED_ID = 65534;

/** A way to run the server: as the test's own user, or under `setpriv` as an unprivileged one. */
export interface RunAs {
  readonly name: string;
  /** The wrapper argv for {@link ServerProcess.start}. */
  readonly wrapper: string[];
  /** The uid the server runs as when it is not the test's own; its directories must be its own. */
  readonly uid: number | null;
}

/** Whether `wrapper` can start the built server (setpriv is there, and the uid can read the checkout). */
function canStart(wrapper: string[]): boolean {
  try {
    execFileSync(wrapper[0]!, [...wrapper.slice(1), process.execPath, CLI_PATH, "--version"], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The users privilege tests run the server as: the test's own and, when that is root (as in CI),
 * also nobody, so both the root and the unprivileged sandbox are proven in one run.
 */
export const runAsModes: RunAs[] = (() => {
  const self = process.getuid?.() ?? -1;
  const modes: RunAs[] = [{ name: self === 0 ? "as root" : `as uid ${self}`, wrapper: [], uid: null }];
  if (self !== 0) return modes;
  const id = String(UNPRIVILEGED_ID);
  const wrapper = ["setpriv", `--reuid=${id}`, `--regid=${id}`, "--clear-groups", "--"];
  if (!programWorks(["setpriv", "--version"], "running the sandbox tests unprivileged", "sudo apt-get install util-linux")) return modes;
  if (canStart(wrapper)) modes.push({ name: `as uid ${id}`, wrapper, uid: UNPRIVILEGED_ID });
  else process.stderr.write(`\n!!! uid ${id} cannot read ${CLI_PATH}: sandbox tests do NOT run the server unprivileged. !!!\n\n`);
  return modes;
})();

/** Gives the directories to the user `runAs` runs the server as (they are the test's own by default). */
export function ownDirs(runAs: RunAs, ...dirs: string[]): void {
  if (runAs.uid !== null) for (const dir of dirs) chownSync(dir, runAs.uid, runAs.uid);
}
