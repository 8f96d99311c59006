import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapAvailable } from "../support/sandbox.js";

/**
 * README.md and the reference in docs/ must stay true for a newcomer:
 * - every code block marked `<!-- output of: COMMAND -->`, in the README or any docs/*.md, is what
 *   COMMAND prints now: the test runs it (the demo, and the turn by hand: the lines of the block
 *   marked `<!-- input of: COMMAND -->` before it pasted one at a time into the server, a turn shown
 *   to its `turn/completed`) and compares;
 * - the command line's output quoted in their text (`--print-startup-config`) is the real one;
 * - every relative link in the repository's markdown files names a file or folder of the
 *   repository, and every `#anchor` a heading of its file, so links work in a clone.
 *
 * `UPDATE_README=1 npx vitest run test/docs/readme.test.ts` rewrites the marked blocks of every
 * file with the current output (review the diff like code). The machine-specific parts of the
 * exchange (the home, the platform in the user agent, process ids) are shown as `/home/me/.agent-app-server`
 * and whatever platform the block names.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(ROOT, "dist", "cli.js");
const UPDATE = process.env.UPDATE_README === "1";
/** The home the quick-start's output shows (the default home of a user `me`). */
const SHOWN_HOME = "/home/me/.agent-app-server";

interface MarkedBlock {
  readonly kind: "input" | "output";
  readonly command: string;
  /** 0-based index of the opening fence's line and of the closing fence's line. */
  readonly open: number;
  readonly close: number;
  readonly body: string[];
}

const MARKER = /^<!-- (input|output) of: (.+?) -->$/;

/** The fenced blocks of a markdown text with an `<!-- input|output of: … -->` marker before them. */
function markedBlocks(text: string): MarkedBlock[] {
  const lines = text.split("\n");
  const blocks: MarkedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^```/.test(lines[index]!)) continue;
    let close = index + 1;
    while (close < lines.length && !/^```\s*$/.test(lines[close]!)) close++;
    let before = index - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const marker = before >= 0 ? MARKER.exec(lines[before]!.trim()) : null;
    if (marker) blocks.push({ kind: marker[1] as "input" | "output", command: marker[2]!, open: index, close, body: lines.slice(index + 1, close) });
    index = close;
  }
  return blocks;
}

const tempDirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The environment a newcomer's shell would give, with a fresh home and no colour switches. */
function cleanEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, AGENT_APP_SERVER_HOME: home, OPENAI_API_KEY: "", LOG_LEVEL: "warn" };
  for (const name of ["FORCE_COLOR", "NO_COLOR", "TERM", "CODEX_HOME"]) delete env[name];
  return env;
}

/** Runs `node dist/cli.js ARGS` to its end; stdout and the exit code. */
function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

type Message = Record<string, any>;

/**
 * Starts `node dist/cli.js ARGS` as a server, pastes each line as a person would (the next one
 * once the server is quiet: a request it answers after everything before it, not shown), and
 * returns the exchange as `→ ` / `← ` lines.
 */
async function converse(args: string[], input: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const received: Array<{ text: string; msg: Message }> = [];
  let waiter: (() => void) | undefined;
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const text of lines) if (text.trim() !== "") received.push({ text, msg: JSON.parse(text) as Message });
    waiter?.();
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const until = async (match: (msg: Message) => boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!received.some(({ msg }) => match(msg))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiter = resolve;
        setTimeout(resolve, 100);
      });
    }
  };
  const exchange: string[] = [];
  let shown = 0;
  let barriers = 0;
  const collect = () => {
    for (; shown < received.length; shown++) {
      const { text, msg } = received[shown]!;
      if (typeof msg.id === "string" && msg.id.startsWith("readme-barrier-")) continue;
      exchange.push(`← ${text}`);
    }
  };
  try {
    for (const line of input) {
      exchange.push(`→ ${line}`);
      child.stdin.write(`${line}\n`);
      const sent = JSON.parse(line) as Message;
      if (sent.id !== undefined) await until((msg) => msg.id === sent.id && !("method" in msg), `the answer to ${line}`);
      // A turn is shown whole: everything up to its turn/completed.
      if (sent.method === "turn/start") {
        const turnId = received.find(({ msg }) => msg.id === sent.id)?.msg.result?.turn?.id;
        await until((msg) => msg.method === "turn/completed" && msg.params?.turn?.id === turnId, `the end of turn ${turnId}`);
      }
      // Past the first request: a barrier, so notifications that follow an answer are shown with it.
      if (sent.method !== "initialize") {
        const id = `readme-barrier-${barriers++}`;
        child.stdin.write(`${JSON.stringify({ id, method: "thread/loaded/list", params: {} })}\n`);
        await until((msg) => msg.id === id, "the server to be quiet");
      }
      collect();
    }
  } finally {
    child.stdin.end();
    await exited;
  }
  return exchange;
}

/**
 * The quick-start's exchange with this machine's home, platform and command process ids replaced
 * by the ones its block shows.
 */
function asShown(exchange: string[], home: string, shown: string[]): string[] {
  const shownPids = shown.flatMap((line) => [...line.matchAll(/"processId":"(\d+)"/g)].map((match) => match[1]!));
  let pid = 0;
  exchange = exchange.map((line) => line.replace(/"processId":"\d+"/g, (found) => (pid < shownPids.length ? `"processId":"${shownPids[pid++]}"` : found)));
  const shownInit = shown
    .filter((line) => line.startsWith("← "))
    .map((line) => JSON.parse(line.slice(2)) as Message)
    .find((msg) => typeof msg.result?.userAgent === "string");
  const platform = (userAgent: string) => /\(([^)]*)\)/.exec(userAgent)?.[1];
  return exchange.map((line) => {
    if (!line.startsWith("← ")) return line;
    const text = line.split(home).join(SHOWN_HOME);
    const msg = JSON.parse(text.slice(2)) as Message;
    if (!shownInit || typeof msg.result?.userAgent !== "string") return text;
    const mine = platform(msg.result.userAgent);
    const theirs = platform(shownInit.result.userAgent);
    if (mine !== undefined && theirs !== undefined) msg.result.userAgent = msg.result.userAgent.replace(`(${mine})`, `(${theirs})`);
    msg.result.platformFamily = shownInit.result.platformFamily ?? msg.result.platformFamily;
    msg.result.platformOs = shownInit.result.platformOs ?? msg.result.platformOs;
    return `← ${JSON.stringify(msg)}`;
  });
}

/** What COMMAND prints now, as the lines of its block. */
async function currentOutput(block: MarkedBlock, blocks: readonly MarkedBlock[]): Promise<string[]> {
  const args = block.command.replace(/^node dist\/cli\.js\s*/, "").split(/\s+/).filter(Boolean);
  if (!block.command.startsWith("node dist/cli.js")) throw new Error(`no way to run \`${block.command}\`: output blocks name a \`node dist/cli.js …\` command`);
  const home = tempDir("aas-readme-");
  const input = blocks.find((other) => other.kind === "input" && other.command === block.command && other.close < block.open);
  if (!input) {
    const run = await runCli(args, cleanEnv(home));
    if (run.code !== 0) throw new Error(`\`${block.command}\` exited ${run.code}: ${run.stderr}`);
    return run.stdout.replace(/\n$/, "").split("\n");
  }
  const lines = input.body.filter((line) => line.trim() !== "");
  return asShown(await converse(args, lines, cleanEnv(home)), home, block.body);
}

/** The files whose examples are checked, relative to the checkout: the README, then docs/ by name. */
function documents(): string[] {
  const docs = readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...docs.map((name) => `docs/${name}`)];
}

describe.each(documents())("%s", (name) => {
  const file = path.join(ROOT, name);
  const text = readFileSync(file, "utf8");
  const blocks = markedBlocks(text);
  const outputs = blocks.filter((block) => block.kind === "output");

  if (name === "README.md") {
    it("marks the demo's output and the quick-start's exchange", () => {
      expect(outputs.map((block) => block.command)).toEqual(["node dist/cli.js demo", "node dist/cli.js --deterministic --script examples/hello.script.json"]);
    });
  }

  it("shows the real output of every marked command", async () => {
    const current = new Map<MarkedBlock, string[]>();
    for (const block of outputs) {
      // A turn's command runs in the sandbox: without bubblewrap it fails closed, and the block cannot match.
      if (!bwrapAvailable && blocks.some((input) => input.kind === "input" && input.command === block.command && input.body.some((line) => line.includes('"turn/start"')))) continue;
      current.set(block, await currentOutput(block, blocks));
    }
    if (UPDATE) {
      const lines = text.split("\n");
      for (const block of [...outputs].reverse()) if (current.has(block)) lines.splice(block.open + 1, block.close - block.open - 1, ...current.get(block)!);
      if (outputs.length > 0) writeFileSync(file, lines.join("\n"));
      return;
    }
    for (const block of outputs.filter((output) => current.has(output))) {
      expect(current.get(block), `${name} line ${block.open + 1}: the output of \`${block.command}\` (UPDATE_README=1 rewrites it)`).toEqual(block.body);
    }
  }, 60_000);
});

describe("--print-startup-config", () => {
  it("is quoted as it prints, wherever the README or docs/ quote it", async () => {
    const run = await runCli(["app-server", "--print-startup-config"], cleanEnv(tempDir("aas-readme-")));
    expect(run.code).toBe(0);
    const quotes = documents().flatMap((name) =>
      [...readFileSync(path.join(ROOT, name), "utf8").matchAll(/`(\{"appServerVersion"[^`]*)`/g)].map((match) => ({ name, quote: match[1]! })),
    );
    expect(quotes.map(({ name }) => name), "no file quotes the output").not.toEqual([]);
    for (const { name, quote } of quotes) expect(quote, `${name} quotes --print-startup-config's output`).toBe(run.stdout.trim());
  });
});

describe("schema files", () => {
  it("every `Name.json` the README or docs/ name is a file of schema/ (or is said to be the reference's)", () => {
    const named = documents().flatMap((name) =>
      readFileSync(path.join(ROOT, name), "utf8")
        .split("\n")
        .filter((line) => !line.includes("of the reference"))
        .flatMap((line) => [...line.matchAll(/`(?:agent-app-server\/schema\/)?([A-Z]\w+\.json)`/g)].map((match) => `${name}: ${match[1]!}`)),
    );
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((entry) => !existsSync(path.join(ROOT, "schema", entry.split(": ")[1]!)))).toEqual([]);
  });
});

/** The markdown files of the repository (not node_modules, dist or generated folders). */
function markdownFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || ["node_modules", "dist", "coverage", "peer-out", "tui-out"].includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".md")) found.push(full);
    }
  };
  walk(ROOT);
  return found.sort();
}

/** GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\s-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a markdown text defines: its headings (numbered on repeats, as GitHub does) and `<a id|name>`. */
function anchors(text: string): Set<string> {
  const result = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      result.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(match[1]!);
  }
  return result;
}

/** Inline links and images `[text](target)` and reference definitions `[x]: target`, outside code. */
function links(text: string): Array<{ line: number; target: string }> {
  const found: Array<{ line: number; target: string }> = [];
  let fenced = false;
  text.split("\n").forEach((raw, index) => {
    if (/^\s*```/.test(raw)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const line = raw.replace(/`[^`]*`/g, "``");
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: index + 1, target: match[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) found.push({ line: index + 1, target: definition[1]! });
  });
  return found;
}

/** Why a relative link of `file` does not work in a clone, or null when it does. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
  const relative = path.relative(ROOT, resolved);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return `${target} leaves the repository (a clone has no ${relative})`;
  if (!existsSync(resolved)) return `${target}: ${relative} does not exist`;
  if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchors(readFileSync(resolved, "utf8")).has(anchor)) {
    return `${target}: ${relative} has no heading #${anchor}`;
  }
  return null;
}

describe("markdown links", () => {
  const files = markdownFiles();

  it("finds the markdown files", () => {
    expect(files.map((file) => path.relative(ROOT, file))).toEqual(
      expect.arrayContaining(["README.md", "docs/PROTOCOL.md", "docs/tools-and-sandbox.md", "docs/operations.md", "fixtures/README.md"]),
    );
  });

  it.each(files.map((file) => [path.relative(ROOT, file), file] as const))("every relative link of %s works in a clone", (_name, file) => {
    const problems = links(readFileSync(file, "utf8"))
      .map(({ line, target }) => {
        const problem = brokenLink(file, target);
        return problem && `line ${line}: ${problem}`;
      })
      .filter(Boolean);
    expect(problems).toEqual([]);
  });
});
