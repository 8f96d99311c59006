import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every process the server starts outside a sandbox is listed in the table of docs/tools-and-sandbox.md
 * ("The trust boundary", guarantee 5), with why the model cannot choose what it runs. A file of src/ that
 * starts a process (execa, child_process, node-pty, the MCP SDK's stdio transport, or a direct,
 * unsandboxed launcher) and is not in the table fails this test: a new one needs its entry.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

/** What starts a process; type-only imports do not. execa is imported through src/vendor/execa.ts. */
const SPAWNERS = String.raw`(?:(?:\.\.\/)+vendor\/execa\.js|execa|node:child_process|child_process|@lydell\/node-pty)`;
const STARTS_A_PROCESS = [
  new RegExp(`^import (?!type\\b)[^;]*from "${SPAWNERS}"`, "m"),
  new RegExp(`import\\("${SPAWNERS}"\\)`),
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

/** Where the table is: the trust boundary's section of the reference on tools and the sandbox. */
const DOC = "docs/tools-and-sandbox.md";

/** The files the table of processes outside the sandbox names. */
function listed(): string[] {
  const doc = readFileSync(path.join(ROOT, DOC), "utf8");
  const heading = doc.search(/^#+ The trust boundary/m);
  expect(heading, `${DOC} has a heading "The trust boundary"`).toBeGreaterThanOrEqual(0);
  const section = doc.slice(heading);
  const header = section.indexOf("| what runs outside a sandbox |");
  expect(header, `${DOC}'s trust boundary section has the table of processes`).toBeGreaterThanOrEqual(0);
  const table = section.slice(header);
  const rows = table.split("\n").filter((line) => line.trim().startsWith("|"));
  const files = rows.flatMap((row) => [...row.matchAll(/`(src\/[^`]+\.ts)`/g)].map((match) => match[1]!));
  return [...new Set(files)].sort();
}

describe("processes started outside the sandbox", () => {
  it("are each in the table of docs/tools-and-sandbox.md, which names no file that starts none", () => {
    const found = starters();
    expect(found.length).toBeGreaterThan(5);
    expect(found.filter((file) => !listed().includes(file)), "start a process but are not in the table").toEqual([]);
    // The table may also name where a launch is built without a spawn of its own.
    const builders = ["src/agent/boundary/sandboxLauncher.ts"];
    expect(listed().filter((file) => !found.includes(file) && !builders.includes(file)), "are in the table but start no process").toEqual([]);
  });
});
