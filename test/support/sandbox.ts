import { execFileSync } from "node:child_process";

/** Whether bubblewrap (≥ 0.8.0, with user namespaces) can start here; sandbox tests are skipped (loudly) when it cannot. */
export const bwrapAvailable = (() => {
  try {
    execFileSync("bwrap", ["--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--", "true"], { stdio: "ignore" });
    return true;
  } catch {
    process.stderr.write("\n!!! bubblewrap (bwrap ≥ 0.8.0 with user namespaces) is not usable here: sandbox tests are SKIPPED. !!!\n\n");
    return false;
  }
})();
