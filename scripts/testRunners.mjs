// The test author's kit in a user's project: docs/testing.md's vitest and jest examples, run against
// the installed package with a fixture as their scenario (scripts/test-package.mjs calls this).
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

/** The fenced block of `language` in `markdown` that contains `marker`. */
function block(markdown, language, marker) {
  const found = [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1]).find((source) => source.includes(marker));
  if (!found) throw new Error(`docs/testing.md has no \`\`\`${language} block with ${marker}`);
  return found;
}

/**
 * Runs docs/testing.md's vitest example (with this repository's vitest, linked in by the examples
 * check) and its jest example (jest installed into `project` with `npm`) in `project`, where the
 * package is installed; `check(ok, what)` records each result.
 */
export function checkTestRunners({ root, project, check, npm, timeoutMs }) {
  const docs = readFileSync(path.join(root, "docs", "testing.md"), "utf8");
  mkdirSync(path.join(project, "scenarios"), { recursive: true });
  for (const ext of ["scenario.json", "jsonl"]) copyFileSync(path.join(root, "fixtures", `01-streamed-answer.${ext}`), path.join(project, "scenarios", `hello.${ext}`));
  const env = { ...process.env, CI: "1", NO_COLOR: "1" };
  // Linked in as the user's project would have it installed (an npm install since may have pruned the link).
  const linked = path.join(project, "node_modules", "vitest");
  if (!existsSync(linked)) symlinkSync(path.join(root, "node_modules", "vitest"), linked, "dir");
  mkdirSync(path.join(project, "vitest-tests"), { recursive: true });
  writeFileSync(path.join(project, "vitest-tests", "hello.test.ts"), block(docs, "ts", 'from "vitest"'));
  const vitest = spawnSync(process.execPath, [path.join(project, "node_modules", "vitest", "vitest.mjs"), "run", "vitest-tests"], { cwd: project, env, encoding: "utf8", timeout: timeoutMs });
  check(vitest.status === 0 && /1 passed/.test(vitest.stdout), `docs/testing.md's vitest example replays a scenario against the installed package${vitest.status === 0 ? "" : `:\n${vitest.stdout}${vitest.stderr}`}`);
  console.log("installing jest into the project …");
  npm(["install", "--save-dev", "jest@29"], project);
  mkdirSync(path.join(project, "jest-tests"), { recursive: true });
  writeFileSync(path.join(project, "jest-tests", "hello.test.mjs"), block(docs, "js", "@jest/globals"));
  const jest = spawnSync(process.execPath, ["--experimental-vm-modules", path.join(project, "node_modules", "jest", "bin", "jest.js"), "--roots", "<rootDir>/jest-tests", "--testMatch", "**/*.test.mjs"], { cwd: project, env, encoding: "utf8", timeout: timeoutMs });
  check(jest.status === 0 && /1 passed/.test(jest.stderr), `docs/testing.md's jest example replays a scenario against the installed package${jest.status === 0 ? "" : `:\n${jest.stdout}${jest.stderr}`}`);
}
