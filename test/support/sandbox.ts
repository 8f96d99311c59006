import { execFileSync } from "node:child_process";
import { bwrapArgv } from "../../src/agent/exec/sandbox.js";

/** Whether bubblewrap can start here with the options every sandboxed command gets; sandbox tests are skipped (loudly) when it cannot. */
export const bwrapAvailable = (() => {
  try {
    const [command, ...args] = bwrapArgv("bwrap", { roots: [], protectedPaths: [] }, false, "/", ["true"]);
    execFileSync(command!, args, { stdio: "ignore" });
    return true;
  } catch {
    process.stderr.write("\n!!! bubblewrap (bwrap ≥ 0.8.0 with user namespaces) is not usable here: sandbox tests are SKIPPED. !!!\n\n");
    return false;
  }
})();
