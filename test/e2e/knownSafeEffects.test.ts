import { spawn } from "node:child_process";
import { accessSync, constants, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { displayCommand } from "../../src/agent/exec/shellWords.js";
import { isKnownSafeCommand } from "../../src/agent/safety/knownSafe.js";
import { KNOWN_SAFE_TABLE, SCRATCH_FILES } from "../support/knownSafeForms.js";
import { missingProgram, programWorks } from "../support/programs.js";

/**
 * Every form the known-safe table accepts, run for real: `/bin/bash -c FORM` in a fresh scratch
 * directory, under strace. Nothing in the directory may change (names, contents, modes, mtimes),
 * and the only programs executed may be bash and the form's own program.
 */

const SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin";
const BASH = "/bin/bash";
// bash runs these itself.
const BUILTINS = new Set(["cd", "echo", "false", "pwd", "true"]);

const straceAvailable = programWorks(["strace", "-V"], "the known-safe effects test", "sudo apt-get install strace");

const root = mkdtempSync(path.join(tmpdir(), "aas-known-safe-effects-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Where bash finds a program on {@link SEARCH_PATH}, or null. */
function onPath(program: string): string | null {
  for (const directory of SEARCH_PATH.split(":")) {
    const file = path.join(directory, program);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Everything about a directory's tree that a write would change: names, types, modes, mtimes, sizes, contents. */
function snapshot(directory: string): string[] {
  const entries = [".", ...readdirSync(directory, { recursive: true, encoding: "utf8" })].sort();
  return entries.map((name) => {
    const file = path.join(directory, name);
    const stat = lstatSync(file);
    const content = stat.isFile() ? readFileSync(file, "base64") : "";
    return `${name} ${stat.mode.toString(8)} ${stat.mtimeMs} ${stat.size} ${content}`;
  });
}

function scratch(index: number): string {
  const directory = path.join(root, `form-${index}`);
  for (const [name, content] of Object.entries(SCRATCH_FILES)) {
    mkdirSync(path.dirname(path.join(directory, name)), { recursive: true });
    writeFileSync(path.join(directory, name), content);
  }
  return directory;
}

/** Runs one form under strace; the programs its processes executed (every execve, failed ones too). */
function traced(argv: readonly string[], directory: string, log: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("strace", ["-f", "-qq", "-e", "trace=execve,execveat", "-o", log, BASH, "-c", displayCommand(argv)], {
      cwd: directory,
      env: { PATH: SEARCH_PATH, HOME: directory, LC_ALL: "C" },
      stdio: ["ignore", "ignore", "ignore"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      const executed = readFileSync(log, "utf8")
        .split("\n")
        .map((line) => /\bexecve(?:at)?\((?:[^",]*, )?"([^"]*)"/.exec(line)?.[1])
        .filter((file): file is string => file !== undefined);
      resolve(executed);
    });
  });
}

const forms = Object.values(KNOWN_SAFE_TABLE).flatMap((entry) => entry.safe);
const runnable = forms.filter((argv) => BUILTINS.has(argv[0]!) || onPath(argv[0]!) !== null);
const missing = forms.filter((argv) => !runnable.includes(argv));
for (const program of new Set(missing.map((argv) => argv[0]!))) {
  missingProgram(program, "its forms in the known-safe effects test", program === "rg" ? "sudo apt-get install ripgrep" : `install ${program}`);
}

describe.skipIf(!straceAvailable)("known-safe forms, run for real", () => {
  it("change nothing in their directory and run no program but their own", async () => {
    expect(runnable.length).toBeGreaterThan(50);
    const results: { argv: readonly string[]; changed: boolean; foreign: string[] }[] = [];
    // Four at a time: strace's start-up dominates, and the machine has few cores.
    const queue = runnable.map((argv, index) => ({ argv, index }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { argv, index } = next;
        expect(isKnownSafeCommand(argv), JSON.stringify(argv)).toBe(true);
        const directory = scratch(index);
        const before = snapshot(directory);
        const executed = await traced(argv, directory, path.join(root, `trace-${index}.log`));
        const allowed = new Set([BASH, ...(BUILTINS.has(argv[0]!) ? [] : [onPath(argv[0]!)!])]);
        results.push({ argv, changed: JSON.stringify(snapshot(directory)) !== JSON.stringify(before), foreign: executed.filter((file) => !allowed.has(file)) });
        expect(executed[0], JSON.stringify(argv)).toBe(BASH);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(results).toHaveLength(runnable.length);
    expect(results.filter((result) => result.changed).map((result) => result.argv)).toEqual([]);
    expect(results.filter((result) => result.foreign.length > 0).map((result) => [result.argv, result.foreign])).toEqual([]);
  }, 30_000);
});
