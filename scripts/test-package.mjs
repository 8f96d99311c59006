#!/usr/bin/env node
// `npm run test:package`: the package as users get it. Packs it (`prepack` rebuilds dist/ from
// scratch, without source maps), installs the tarball into a fresh project from the npm registry
// and checks the tarball, the install's footprint, the command line, the library's entry points
// and their types, the shell parser's vendored grammar, and MCP with and without the optional
// MCP SDK. Not part of `npm test`: it needs the registry and rebuilds dist/ (tests running at
// the same time would lose dist/cli.js for a while; `npm run build` brings the source maps back).
// About 25 s with a warm npm cache.
//
// --keep: leave the temp dir (its path is printed) to look around.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkReadmeExamples } from "./readmeExamples.mjs";
import { checkTestRunners } from "./testRunners.mjs";
import { licenceFile, VENDORED } from "./vendored.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const SDK = "@modelcontextprotocol/sdk";
const MCP_SDK_MISSING = `MCP servers need ${SDK}: npm install ${SDK}`;

// Budgets: the issue's target for an install (under 30 MB), and above today's other figures,
// well below what a regression looks like (dependencies bundled twice, source maps, the MCP SDK's
// HTTP servers, tree-sitter-bash's C sources or a whole vendored package in every install). The
// unpacked budget grew by 1 MB with the Anthropic and Gemini SDKs (1.2 MB minified, in dist/vendor/),
// by 0.1 MB with execa (0.12 MB minified; an install lost its 23 packages), and by 0.15 MB with
// `record` (its modules, twice: tsc's and the bundle's) and the scenario and model-script schemas,
// and by 0.25 MB with `acp` (the ACP SDK, 55 KB minified; its modules, twice; docs/acp.md) and
// the recorded MCP servers in the scenario schema, and by 0.05 MB with the command gate, the
// turn's editor files, threads' own MCP servers (modules, twice) and the agent loop's chunk.
const BUDGET = { mapBytes: 1_000_000, unpackedBytes: 10_100_000, installKiB: 30 * 1024 };
// Never in an install without MCP: the SDK and its server side; what dist/vendor/ ships instead
// (tree-sitter-bash's grammar, and bundles of the packages scripts/vendored.mjs lists).
const ABSENT = [SDK, "express", "hono", "@hono/node-server", "cors", "tree-sitter-bash", "node-gyp-build", ...VENDORED.map(({ name }) => name)];

const NPM_TIMEOUT_MS = 300_000;
const RUN_TIMEOUT_MS = 60_000;
const keep = process.argv.includes("--keep");
const work = mkdtempSync(path.join(os.tmpdir(), "aas-package-"));
const project = path.join(work, "project");
const failures = [];
const figures = {};

function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
}

/** Runs a command; its stdout, or a thrown error with its stderr. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error || result.status !== 0) {
    const why = result.error ? result.error.message : `exit ${result.status}${result.signal ? ` (${result.signal})` : ""}`;
    throw new Error(`${command} ${args.join(" ")}: ${why}\n${(result.stderr ?? "").slice(-4000)}`);
  }
  return result.stdout;
}

const npm = (args, cwd) => run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, timeout: NPM_TIMEOUT_MS });

/** Disk use (KiB, as `du -sk`) and apparent size (bytes) of a directory. */
function footprint(dir) {
  const kib = Number(execFileSync("du", ["-sk", dir], { encoding: "utf8" }).split(/\s/)[0]);
  const bytes = Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split(/\s/)[0]);
  return { kib, bytes };
}

/** Packages installed in `project` (entries of npm's hidden lockfile). */
function packageCount() {
  const lock = JSON.parse(readFileSync(path.join(project, "node_modules", ".package-lock.json"), "utf8"));
  return Object.keys(lock.packages).filter((key) => key.startsWith("node_modules/")).length;
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/** Runs an ES module in the project (so bare imports resolve from its node_modules); its stdout. */
function inProject(name, source, env = {}) {
  const file = path.join(project, name);
  writeFileSync(file, source);
  return run(process.execPath, [file], { cwd: project, env: { ...process.env, ...env } });
}

/**
 * Starts the installed server (with our installed client) with MCP server `probe` configured as
 * `table` and an HTTP one, `remote`, that nothing serves; polls mcpServerStatus/list until `probe`
 * is no longer starting: its status, and what `mcpServer/oauth/login` to `remote` answers.
 */
function mcpStatus(table) {
  const home = mkdtempSync(path.join(work, "home-"));
  return JSON.parse(
    inProject(
      "mcp-status.mjs",
      `import { AppServerClient } from "agent-app-server/client";
const args = ["-c", ${JSON.stringify(`mcp_servers.probe=${table}`)}, "-c", 'mcp_servers.remote={url="http://127.0.0.1:9/mcp"}'];
const client = await AppServerClient.spawn({ args, env: { ...process.env, AGENT_APP_SERVER_HOME: ${JSON.stringify(home)} } });
const deadline = Date.now() + 20_000;
let status;
for (;;) {
  status = (await client.request("mcpServerStatus/list", {})).data.find((entry) => entry.name === "probe");
  if (status.runtimeStatus !== "starting" || Date.now() > deadline) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const login = await client.request("mcpServer/oauth/login", { name: "remote" }).then(() => null, (error) => error.message);
await client.close();
console.log(JSON.stringify({ status: status.runtimeStatus, error: status.toolsError, tools: Object.keys(status.tools ?? {}), login }));
`,
    ),
  );
}

try {
  // 1. The tarball.
  console.log(`packing ${manifest.name} (prepack rebuilds dist/) …`);
  const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", work], root));
  const tarball = path.join(work, packed.filename);
  const paths = packed.files.map((file) => file.path);
  const maps = packed.files.filter((file) => file.path.endsWith(".map"));
  Object.assign(figures, { tarballBytes: packed.size, unpackedBytes: packed.unpackedSize, files: packed.entryCount });
  console.log(`tarball: ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${packed.entryCount} files`);
  check(paths.includes("LICENSE") && readFileSync(path.join(root, "LICENSE"), "utf8").includes("Apache License"), "LICENSE (Apache-2.0) is in the tarball");
  const mapBytes = maps.reduce((sum, file) => sum + file.size, 0);
  check(mapBytes <= BUDGET.mapBytes, `source maps: ${maps.length} files, ${mb(mapBytes)} (budget ${mb(BUDGET.mapBytes)})`);
  check(packed.unpackedSize <= BUDGET.unpackedBytes, `unpacked size ${mb(packed.unpackedSize)} (budget ${mb(BUDGET.unpackedBytes)})`);
  const vendored = ["tree-sitter-bash.wasm", "tree-sitter-bash.LICENSE", "tree-sitter.wasm", ...VENDORED.flatMap(({ module, name }) => [`${module}.js`, licenceFile(name)])];
  const missing = vendored.filter((file) => !paths.includes(`dist/vendor/${file}`));
  check(missing.length === 0, `dist/vendor/ holds the bash grammar and the bundled packages, with their licences${missing.length ? ` (missing: ${missing.join(", ")})` : ""}`);
  check(!paths.some((file) => file.includes("node_modules/")), "no node_modules in the tarball");
  // What the README links to and the error messages name travels with the package: the reference and the example script.
  const documents = [...readdirSync(path.join(root, "docs")).map((name) => `docs/${name}`), ...readdirSync(path.join(root, "examples")).map((name) => `examples/${name}`)];
  const unshipped = documents.filter((file) => !paths.includes(file));
  check(unshipped.length === 0, `docs/ and examples/ are in the tarball (${documents.length} files)${unshipped.length ? ` (missing: ${unshipped.join(", ")})` : ""}`);
  const absent = ["repository", "homepage", "bugs", "keywords", "engines", "license"].filter((key) => manifest[key] === undefined);
  check(absent.length === 0, `package.json has repository, homepage, bugs, keywords, engines and license${absent.length ? ` (missing: ${absent.join(", ")})` : ""}`);

  // 2. A fresh project installs it.
  console.log("installing the tarball into a fresh project …");
  run("mkdir", ["-p", project]);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "package-test", version: "1.0.0", private: true, type: "module" }, null, 2));
  let started = performance.now();
  npm(["install", tarball], project);
  figures.installSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
  const installed = footprint(path.join(project, "node_modules"));
  Object.assign(figures, { installKiB: installed.kib, installBytes: installed.bytes, packages: packageCount() });
  console.log(`install: ${(installed.kib / 1024).toFixed(1)} MiB on disk (du -sk), ${mb(installed.bytes)} apparent, ${figures.packages} packages, ${figures.installSeconds} s`);
  check(installed.kib <= BUDGET.installKiB, `install footprint ${(installed.kib / 1024).toFixed(1)} MiB (budget ${BUDGET.installKiB / 1024} MiB)`);
  const present = ABSENT.filter((name) => existsSync(path.join(project, "node_modules", name)));
  check(present.length === 0, `not installed: ${ABSENT.join(", ")}${present.length ? ` (found: ${present.join(", ")})` : ""}`);

  // 3. The command line, the library's entry points and their types.
  const bin = path.join(project, "node_modules", ".bin", "agent-app-server");
  started = performance.now();
  const version = run(bin, ["--version"]).trim();
  figures.versionMs = Math.round(performance.now() - started);
  check(version === `agent-app-server ${manifest.version}`, `agent-app-server --version: ${version} (${figures.versionMs} ms)`);
  const entries = inProject(
    "entries.mjs",
    `const client = await import("agent-app-server/client");
const library = await import("agent-app-server");
const testing = await import("agent-app-server/testing");
console.log([typeof client.AppServerClient, typeof library.createAppServer, typeof testing.startMockModel].join(" "));
`,
  ).trim();
  check(entries === "function function function", `import("agent-app-server/client"), "agent-app-server", "agent-app-server/testing": ${entries}`);
  const examplesHome = path.join(work, "examples-home");
  mkdirSync(examplesHome, { recursive: true });
  checkReadmeExamples({ root, project, home: examplesHome, check, timeoutMs: RUN_TIMEOUT_MS });

  // 4. The shell parser loads the grammar from dist/vendor/ (tree-sitter-bash is not installed).
  const parserModule = pathToFileURL(path.join(project, "node_modules", "agent-app-server", "dist", "agent", "safety", "shellParser.js")).href;
  const parsed = inProject("parse.mjs", `const { parseScript } = await import(${JSON.stringify(parserModule)});\nconsole.log(JSON.stringify((await parseScript("git status && ls -la | wc -l")).plain));\n`).trim();
  check(parsed === JSON.stringify([["git", "status"], ["ls", "-la"], ["wc", "-l"]]), `the shell parser parses with the vendored grammar: ${parsed}`);
  // The demo: a scripted session through the installed server (approvals, a command, a file change).
  const demo = spawnSync(bin, ["demo"], { cwd: project, encoding: "utf8", timeout: RUN_TIMEOUT_MS });
  check(demo.status === 0 && demo.stdout.includes("turn completed"), `agent-app-server demo exits 0${demo.status === 0 ? "" : ` (status ${demo.status}): ${demo.stderr.slice(-2000)}`}`);

  // 5. MCP without the SDK: a clear failure; then with it (installed as the peer range says): ready.
  const calcServer = path.join(project, "calc-server.mjs");
  writeFileSync(
    calcServer,
    `import { McpServer } from "${SDK}/server/mcp.js";
import { StdioServerTransport } from "${SDK}/server/stdio.js";
const server = new McpServer({ name: "calc", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong." }, async () => ({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
`,
  );
  const table = `{command=${JSON.stringify(process.execPath)},args=[${JSON.stringify(calcServer)}]}`;
  const without = mcpStatus(table);
  check(
    without.status === "failed" && without.error === `MCP server \`probe\` failed: ${MCP_SDK_MISSING}`,
    `without ${SDK}, a configured MCP server fails with: ${without.error}`,
  );
  check(without.login === MCP_SDK_MISSING, `without ${SDK}, mcpServer/oauth/login is refused with: ${without.login}`);
  console.log(`installing ${SDK}@${manifest.peerDependencies[SDK]} (the optional peer) …`);
  npm(["install", `${SDK}@${manifest.peerDependencies[SDK]}`], project);
  const withSdk = footprint(path.join(project, "node_modules"));
  Object.assign(figures, { withSdkKiB: withSdk.kib, withSdkBytes: withSdk.bytes, withSdkPackages: packageCount() });
  console.log(`install with the MCP SDK (the peer range): ${(withSdk.kib / 1024).toFixed(1)} MiB on disk, ${mb(withSdk.bytes)} apparent, ${figures.withSdkPackages} packages`);
  const withStatus = mcpStatus(table);
  check(withStatus.status === "connected" && withStatus.tools.includes("ping"), `with ${SDK} installed, the MCP server connects and lists its tools: ${JSON.stringify(withStatus)}`);

  // 6. Last (jest's install would count in the figures above): a scenario replayed from vitest and from jest.
  checkTestRunners({ root, project, check, npm, timeoutMs: RUN_TIMEOUT_MS });
} catch (error) {
  failures.push(String(error?.stack ?? error));
  console.log(`FAIL ${error?.message ?? error}`);
} finally {
  console.log(`figures: ${JSON.stringify(figures)}`);
  if (keep) console.log(`kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.log(`${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("package: all checks passed");
