import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every process the server starts outside a sandbox is listed in the README's table ("The trust
 * boundary", guarantee 5), with why the model cannot choose what it runs. A file of src/ that
 * starts a process (execa, child_process, node-pty, the MCP SDK's stdio transport, or a direct,
 * unsandboxed launcher) and is not in the table fails this test: a new one needs its entry.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

/** What starts a process; type-only imports do not. */
const STARTS_A_PROCESS = [
  /^import (?!type\b)[^;]*from "(?:execa|node:child_process|child_process|@lydell\/node-pty)"/m,
  /import\("(?:execa|node:child_process|child_process|@lydell\/node-pty)"\)/,
  /\bStdioClientTransport\b/,
  // Whoever builds an unsandboxed launcher decides that something runs outside the sandbox (the
  // spawners in exec/ run whatever launcher they are given: processGroup.ts is listed for execa).
  /\bdirectLauncher\(/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .map((name) => path.join(dir, name));
}

/** The files of src/ that start a process, relative to the checkout. */
function starters(): string[] {
  return sourceFiles(path.join(ROOT, "src"))
    .filter((file) => STARTS_A_PROCESS.some((pattern) => pattern.test(readFileSync(file, "utf8"))))
    .map((file) => path.relative(ROOT, file))
    .sort();
}

/** The files the README's table of processes outside the sandbox names. */
function listed(): string[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### The trust boundary"));
  const table = section.slice(section.indexOf("| what runs outside a sandbox |"));
  const rows = table.split("\n").filter((line) => line.trim().startsWith("|"));
  const files = rows.flatMap((row) => [...row.matchAll(/`(src\/[^`]+\.ts)`/g)].map((match) => match[1]!));
  return [...new Set(files)].sort();
}

describe("processes started outside the sandbox", () => {
  it("are each in the README's table, which names no file that starts none", () => {
    const found = starters();
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter((file) => !listed().includes(file)), "start a process but are not in the README's table").toEqual([]);
    // The table may also name where a launch is built without a spawn of its own.
    const builders = ["src/agent/boundary/sandboxLauncher.ts"];
    expect(listed().filter((file) => !found.includes(file) && !builders.includes(file)), "are in the table but start no process").toEqual([]);
  });
});
