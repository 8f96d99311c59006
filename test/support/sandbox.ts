import { execFileSync } from "node:child_process";

/** Whether bubblewrap can start here; sandbox tests are skipped (loudly) when it cannot. */
export const bwrapAvailable = (() => {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "--unshare-net", "--", "true"], { stdio: "ignore" });
    return true;
  } catch {
    process.stderr.write("\n!!! bubblewrap (bwrap) is not usable here: sandbox tests are SKIPPED. !!!\n\n");
    return false;
  }
})();
