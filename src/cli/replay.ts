import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { playScenario } from "../testing/scenarioRunner.js";
import { diffTranscripts, firstDifferingLine, renderTranscript } from "../testing/transcript.js";

/** The golden transcript that belongs to a scenario file (`x.scenario.json` → `x.jsonl`). */
export function goldenPathOf(scenarioFile: string): string {
  return scenarioFile.replace(/(\.scenario)?\.json$/, "") + ".jsonl";
}

/**
 * `replay`: plays each scenario and prints its transcript, checks it against its golden file
 * (exit code 1 and a diff on a mismatch, naming the step it came during), or rewrites the golden file.
 */
export async function replay(scenarios: readonly string[], mode: "print" | "check" | "update"): Promise<number> {
  let failures = 0;
  for (const file of scenarios) {
    const scenario = JSON.parse(await readFile(file, "utf8")) as { steps?: unknown[] };
    const played = await playScenario(scenario);
    const transcript = renderTranscript(played.entries);
    const golden = goldenPathOf(file);
    if (mode === "print") {
      process.stdout.write(transcript);
    } else if (mode === "update") {
      await writeFile(golden, transcript);
      process.stderr.write(`wrote ${golden}\n`);
    } else if (!existsSync(golden)) {
      failures++;
      process.stderr.write(`FAIL ${file}: no golden file ${golden}; create it with: agent-app-server replay ${file} --update\n`);
    } else {
      const expected = await readFile(golden, "utf8");
      const diff = diffTranscripts(expected, transcript);
      if (diff) failures++;
      process.stderr.write(diff ? `FAIL ${file}${during(played.stepOf, firstDifferingLine(expected, transcript)!, scenario.steps ?? [])}\n${diff}\n` : `ok   ${file}\n`);
    }
  }
  return failures > 0 ? 1 : 0;
}

/** Which step the differing line came during: `, at steps[4] (request turn/start)`. */
function during(stepOf: readonly number[], line: number, steps: readonly unknown[]): string {
  const index = stepOf[Math.min(line, stepOf.length - 1)];
  if (index === undefined) return "";
  if (index < 0) return ", while starting (initialize)";
  const step = (steps[index] ?? {}) as Record<string, unknown>;
  const kind = ["request", "notify", "waitFor", "answer", "send", "sendRaw", "check", "restart"].find((key) => key in step);
  const what = kind === undefined ? "" : ` (${kind}${typeof step[kind] === "string" ? ` ${step[kind] as string}` : ""})`;
  return `, at steps[${index}]${what}`;
}
