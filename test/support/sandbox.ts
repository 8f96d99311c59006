import { execFileSync } from "node:child_process";
import { missingProgram } from "./programs.js";

/** Whether bubblewrap (≥ 0.8.0, with user namespaces) can start here; sandbox tests are skipped (and named in the suite's summary) when it cannot. */
export const bwrapAvailable = (() => {
  try {
    execFileSync("bwrap", ["--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--", "true"], { stdio: "ignore" });
    return true;
  } catch {
    missingProgram("bubblewrap", "the sandbox tests", "sudo apt-get install bubblewrap; 0.8.0 or later, with user namespaces allowed");
    return false;
  }
})();
