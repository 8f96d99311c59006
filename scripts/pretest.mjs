#!/usr/bin/env node
// `npm test`'s first step: the build (scripts/build.mjs) and the type-check of the tests
// (tsc -p test/tsconfig.json) at once. Neither reads what the other writes, and each is one tsc
// run of about the same length, so side by side on two cores they take half the time.
// Both keep what they learnt for the next run: the build is skipped when dist/ was built from the
// sources as they are (`--if-stale`, a digest of the inputs), and the type-check is incremental,
// its state in node_modules/.cache/, so a second `npm test` starts testing within seconds.
// Fails (exit 1) when either fails; each one's output is printed as it comes.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const TYPECHECK_STATE = path.join(root, "node_modules", ".cache", "agent-app-server", "test-typecheck.tsbuildinfo");

function run(what, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
    child.on("exit", (code, signal) => {
      if (code !== 0) console.error(`pretest: ${what} failed (${signal ?? `exit code ${code}`})`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all([
  run("the build", ["scripts/build.mjs", "--if-stale"]),
  run("the tests' type-check", [tsc, "-p", "test/tsconfig.json", "--noEmit", "--incremental", "--tsBuildInfoFile", TYPECHECK_STATE]),
]);
process.exit(results.every(Boolean) ? 0 : 1);
