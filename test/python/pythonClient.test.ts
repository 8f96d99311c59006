import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));
const PYTHON = process.env.PYTHON ?? "python3";
const TIMEOUT_MS = 120_000;

/** Runs the Python client's unittest suite (clients/python/tests) against the built server. */
describe("Python client (clients/python)", () => {
  it(
    "passes its unittest suite",
    async () => {
      const version = spawnSync(PYTHON, ["-c", "import sys; print(sys.version.split()[0]); sys.exit(sys.version_info < (3, 10))"], {
        encoding: "utf8",
      });
      if (version.error) {
        throw new Error(`${PYTHON} is needed to test the Python client (clients/python) but could not be run: ${version.error.message}`);
      }
      if (version.status !== 0) {
        throw new Error(`the Python client needs Python >= 3.10; ${PYTHON} is ${version.stdout.trim() || "unknown"} ${version.stderr}`);
      }

      const child = spawn(PYTHON, ["-m", "unittest", "discover", "-s", "clients/python/tests", "-v"], {
        cwd: ROOT,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS - 5_000);
      const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
      }).finally(() => clearTimeout(timer));

      const report = `python3 -m unittest discover -s clients/python/tests -v → code ${code}, signal ${signal}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
      if (code !== 0) process.stderr.write(`${report}\n`);
      expect(code, report).toBe(0);
      // unittest prints its summary on stderr; make sure tests really ran.
      expect(stderr).toMatch(/Ran [1-9]\d* tests?/);
      expect(stderr).toMatch(/\nOK/);
    },
    TIMEOUT_MS,
  );
});
