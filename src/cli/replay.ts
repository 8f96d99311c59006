import { readFile, writeFile } from "node:fs/promises";
import { runScenarioFile } from "../testing/scenarioRunner.js";
import { diffTranscripts, renderTranscript } from "../testing/transcript.js";

/** The golden transcript that belongs to a scenario file (`x.scenario.json` → `x.jsonl`). */
export function goldenPathOf(scenarioFile: string): string {
  return scenarioFile.replace(/(\.scenario)?\.json$/, "") + ".jsonl";
}

/**
 * `replay`: plays each scenario and prints its transcript, checks it against its golden file
 * (exit code 1 and a diff on a mismatch), or rewrites the golden file.
 */
export async function replay(scenarios: readonly string[], mode: "print" | "check" | "update"): Promise<number> {
  let failures = 0;
  for (const file of scenarios) {
    const transcript = renderTranscript(await runScenarioFile(file));
    const golden = goldenPathOf(file);
    if (mode === "print") {
      process.stdout.write(transcript);
    } else if (mode === "update") {
      await writeFile(golden, transcript);
      process.stderr.write(`wrote ${golden}\n`);
    } else {
      const expected = await readFile(golden, "utf8").catch(() => "");
      const diff = diffTranscripts(expected, transcript);
      if (diff) failures++;
      process.stderr.write(diff ? `FAIL ${file}\n${diff}\n` : `ok   ${file}\n`);
    }
  }
  return failures > 0 ? 1 : 0;
}
