#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc, then bundles the command line
// (scripts/bundle-cli.mjs), then writes dist/.build-stamp.json: a digest of every input of the build.
// Always a full build: tsc's incremental state (dist/.tsbuildinfo) is deleted first.
//
// `--if-stale` (`npm start`, `npm run serve`): does nothing when dist/ was built from the inputs as
// they are now (the same digest, the entry points present), so a second `npm start` starts at once;
// otherwise it builds, reusing tsc's incremental state. The inputs are src/, the build scripts,
// tsconfig.json, package.json and package-lock.json; their contents are hashed (a few ms), not their
// times, so a checkout, an edit undone or a deleted file all count.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const STAMP = path.join(dist, ".build-stamp.json");
const BUILD_INFO = path.join(dist, ".tsbuildinfo");
const INPUT_DIRS = ["src"];
const INPUT_FILES = ["scripts/build.mjs", "scripts/bundle-cli.mjs", "scripts/vendor.mjs", "scripts/vendored.mjs", "tsconfig.json", "package.json", "package-lock.json"];
const OUTPUTS = ["cli.js", "cli.cjs", "vendor/openai.js", "vendor/webTreeSitter.js", "index.js", "index.d.ts", "client/index.js", "testing/index.js"];

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== "--if-stale" && arg !== "--before-protocol");
if (unknown.length > 0) {
  console.error(`build: unknown argument ${unknown[0]} (usage: node scripts/build.mjs [--if-stale] [--before-protocol])`);
  process.exit(2);
}
const ifStale = args.includes("--if-stale");

// `--before-protocol` (`npm run serve`): the server speaks the protocol on stdout next. Unless told
// --silent, npm has already printed its "> agent-app-server@… serve" banner there, and a program
// that spawned us would read it as a broken message: say so at once, rather than serve after it.
if (args.includes("--before-protocol") && !process.stdout.isTTY && process.env.npm_config_user_agent?.startsWith("npm/") && process.env.npm_config_loglevel !== "silent") {
  console.error("agent-app-server: npm printed its banner on stdout, which carries the protocol; spawn `npm run --silent serve` or `node dist/cli.js` instead");
  process.exit(1);
}

/** sha256 of every input's path and contents. */
function inputDigest() {
  const inDirs = INPUT_DIRS.flatMap((dir) =>
    readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)).split(path.sep).join("/")),
  );
  const hash = createHash("sha256");
  for (const file of [...inDirs, ...INPUT_FILES.filter((file) => existsSync(path.join(root, file)))].sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}

function upToDate(digest) {
  if (!OUTPUTS.every((output) => existsSync(path.join(dist, output)))) return false;
  try {
    return JSON.parse(readFileSync(STAMP, "utf8")).inputs === digest;
  } catch {
    return false;
  }
}

function run(what, command, commandArgs) {
  // What the build prints goes to stderr: stdout may be about to carry the protocol (`npm run serve`).
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: ["ignore", process.stderr, process.stderr] });
  if (result.status !== 0) {
    console.error(`build: ${what} failed${result.signal ? ` (${result.signal})` : ""}`);
    process.exit(result.status || 1);
  }
}

const digest = inputDigest();
if (ifStale && upToDate(digest)) process.exit(0);

// A build stopped halfway must not look finished.
rmSync(STAMP, { force: true });
if (!ifStale) rmSync(BUILD_INFO, { force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
run("tsc", process.execPath, [tsc, "-p", "tsconfig.json", "--incremental", "--tsBuildInfoFile", BUILD_INFO]);
run("bundling the command line", process.execPath, [path.join(root, "scripts", "bundle-cli.mjs")]);
run("vendoring the bash grammar, the openai SDK and web-tree-sitter", process.execPath, [path.join(root, "scripts", "vendor.mjs")]);
writeFileSync(STAMP, `${JSON.stringify({ inputs: digest, builtAt: new Date().toISOString() })}\n`);
