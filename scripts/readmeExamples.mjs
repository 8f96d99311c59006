// The TypeScript examples of the README and of docs/, as a user of the installed package meets
// them: type-checked with the strictest flags a consumer may use (strict,
// exactOptionalPropertyTypes, skipLibCheck: false), then compiled and run where they can run
// here. Each example compiles as written: nothing is declared for it. Used by test-package.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

const ANSWER = "All 12 tests pass.";

/** The ```ts blocks of a markdown text, in order. */
function tsBlocks(markdown) {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/** The markdown files whose examples are checked: the README, then docs/ by name. */
function documents(root) {
  const docs = readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...docs.map((name) => path.join("docs", name))];
}

/**
 * Checks the examples of the README and docs/ in `project` (where the package is installed):
 * `check(ok, what)` records each result; `root` is this repository (its typescript, @types/node
 * and vitest types).
 */
export function checkReadmeExamples({ root, project, home, check, timeoutMs }) {
  const found = documents(root).flatMap((document) =>
    tsBlocks(readFileSync(path.join(root, document), "utf8")).map((source, index) => ({ document, source, index })),
  );
  const examples = found.map(({ source }) => source);
  const dir = path.join(project, "examples");
  mkdirSync(dir, { recursive: true });
  const files = found.map(({ document, source, index }) => {
    const file = `${path.basename(document, ".md").toLowerCase()}-${index + 1}.ts`;
    writeFileSync(path.join(dir, file), source);
    return file;
  });
  // The test-runner example imports vitest, as the user's project would have it: ours, linked in.
  const vitest = path.join(project, "node_modules", "vitest");
  if (!existsSync(vitest)) symlinkSync(path.join(root, "node_modules", "vitest"), vitest, "dir");
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022",
        strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false,
        rootDir: "examples", outDir: "out",
        types: ["node"], typeRoots: [path.join(root, "node_modules", "@types")],
      },
      include: ["examples"],
    }),
  );
  const started = performance.now();
  const tsc = spawnSync(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project], { encoding: "utf8", timeout: timeoutMs });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  check(examples.length >= 4 && tsc.status === 0, `the ${examples.length} TypeScript examples of the README and docs/ type-check (strict, exactOptionalPropertyTypes, skipLibCheck: false; ${seconds} s)${tsc.status === 0 ? "" : `:\n${tsc.stdout}${tsc.stderr}`}`);

  // Run each example that needs nothing beyond this machine: a model comes from the scripted provider.
  writeFileSync(path.join(home, "script.json"), JSON.stringify([{ items: [{ type: "message", text: ANSWER }] }]));
  writeFileSync(path.join(home, "config.toml"), `model_provider = "scripted"\nscripted_model_script = ${JSON.stringify(path.join(home, "script.json"))}\n`);
  const env = { ...process.env, AGENT_APP_SERVER_HOME: home, HOME: home };
  for (const [index, file] of files.entries()) {
    const source = examples[index];
    // The test-runner example runs under vitest, with scenario files of the user's: type-checked only.
    if (source.includes('from "vitest"')) continue;
    const script = `await import("./out/${file.replace(/\.ts$/, ".js")}");\nprocess.exit(0);\n`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, env, encoding: "utf8", timeout: timeoutMs });
    const answered = !source.includes("runTurn") || result.stdout.includes(ANSWER);
    check(result.status === 0 && answered, `example ${found[index].document} ${found[index].index + 1} runs (${source.split("\n")[0]})${result.status === 0 && answered ? "" : `:\n${result.stdout}${result.stderr}`}`);
  }
}
