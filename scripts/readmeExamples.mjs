// The README's TypeScript examples, as a user of the installed package meets them: type-checked
// with the strictest flags a consumer may use (strict, exactOptionalPropertyTypes,
// skipLibCheck: false), then compiled and run where they can run here. Used by test-package.mjs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

// What the examples leave to the embedder's own code, declared for the type-check and defined for the run.
const CONTEXT_TYPES = `import type { UserInputHandler } from "agent-app-server/client";
import type { DynamicToolSpec } from "agent-app-server/protocol";

declare global {
  function lookUp(tool: string, args: unknown): Promise<string>;
  function askTheUser(questions: Parameters<UserInputHandler>[0]["questions"]): ReturnType<UserInputHandler>;
  const lookupTool: DynamicToolSpec;
}
`;
const CONTEXT_RUNTIME = `globalThis.lookUp = async () => "looked up";
globalThis.askTheUser = async () => ({ answers: {} });
globalThis.lookupTool = { name: "lookup", description: "Looks a word up.", inputSchema: { type: "object", properties: {} } };
`;
const ANSWER = "All 12 tests pass.";

/** The ```ts blocks of a markdown text, in order. */
function tsBlocks(markdown) {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/**
 * Checks the README's examples in `project` (where the package is installed): `check(ok, what)`
 * records each result; `root` is this repository (its typescript, @types/node and vitest types).
 */
export function checkReadmeExamples({ root, project, home, check, timeoutMs }) {
  const examples = tsBlocks(readFileSync(path.join(root, "README.md"), "utf8"));
  const dir = path.join(project, "examples");
  mkdirSync(dir, { recursive: true });
  const files = examples.map((source, index) => {
    const file = `readme-${index + 1}.ts`;
    writeFileSync(path.join(dir, file), source);
    return file;
  });
  writeFileSync(path.join(dir, "context.d.ts"), CONTEXT_TYPES);
  // The test-runner example imports vitest, as the user's project would have it: ours, linked in.
  const vitest = path.join(project, "node_modules", "vitest");
  if (!existsSync(vitest)) symlinkSync(path.join(root, "node_modules", "vitest"), vitest, "dir");
  writeFileSync(path.join(project, "context.mjs"), CONTEXT_RUNTIME);
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
  check(examples.length >= 4 && tsc.status === 0, `the README's ${examples.length} TypeScript examples type-check (strict, exactOptionalPropertyTypes, skipLibCheck: false; ${seconds} s)${tsc.status === 0 ? "" : `:\n${tsc.stdout}${tsc.stderr}`}`);

  // Run each example that needs nothing beyond this machine: a model comes from the scripted provider.
  writeFileSync(path.join(home, "script.json"), JSON.stringify([{ items: [{ type: "message", text: ANSWER }] }]));
  writeFileSync(path.join(home, "config.toml"), `model_provider = "scripted"\nscripted_model_script = ${JSON.stringify(path.join(home, "script.json"))}\n`);
  const env = { ...process.env, AGENT_APP_SERVER_HOME: home, HOME: home };
  for (const [index, file] of files.entries()) {
    const source = examples[index];
    // The test-runner example runs under vitest, with scenario files of the user's: type-checked only.
    if (source.includes('from "vitest"')) continue;
    const script = `import "./context.mjs";\nawait import("./out/${file.replace(/\.ts$/, ".js")}");\nprocess.exit(0);\n`;
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, env, encoding: "utf8", timeout: timeoutMs });
    const answered = !source.includes("runTurn") || result.stdout.includes(ANSWER);
    check(result.status === 0 && answered, `README example ${index + 1} runs (${source.split("\n")[0]})${result.status === 0 && answered ? "" : `:\n${result.stdout}${result.stderr}`}`);
  }
}
