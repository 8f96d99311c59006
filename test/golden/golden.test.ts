import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { goldenPathOf } from "../../src/cli/replay.js";
import { runScenario, runScenarioFile } from "../../src/testing/scenarioRunner.js";
import { diffTranscripts, renderTranscript, type TranscriptEntry } from "../../src/testing/transcript.js";
import { checkServerMessage, referenceAvailable } from "../conformance/referenceSchema.js";
import { CLI_PATH } from "../support/serverProcess.js";
import { turnViolations } from "../support/turnInvariants.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures");
// The built server, as `npm test` builds it first.
const options = { command: [process.execPath, CLI_PATH] };
const scenarios = readdirSync(FIXTURES).filter((file) => file.endsWith(".scenario.json")).sort();

/** Problems with the server's side of a transcript: reference conformance and the turn lifecycle. */
function serverProblems(transcript: readonly TranscriptEntry[]): string[] {
  const sent = new Map<unknown, string>();
  const received: unknown[] = [];
  const problems: string[] = [];
  for (const entry of transcript) {
    if (entry.dir === "c2s" && typeof entry.msg === "object" && entry.msg !== null) {
      const message = entry.msg as { id?: unknown; method?: string };
      if (message.id !== undefined && message.method) sent.set(message.id, message.method);
    }
    if (entry.dir !== "s2c") continue;
    received.push(entry.msg);
    if (referenceAvailable) problems.push(...checkServerMessage(entry.msg, (id) => sent.get(id)));
  }
  return [...problems, ...turnViolations(received)];
}

describe("golden transcripts (fixtures/)", () => {
  it("has the scenarios the project promises", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(16);
  });

  it.each(scenarios)("%s matches its golden file", async (file) => {
    const scenario = path.join(FIXTURES, file);
    const transcript = await runScenarioFile(scenario, options);
    const diff = diffTranscripts(readFileSync(goldenPathOf(scenario), "utf8"), renderTranscript(transcript));
    expect(diff, `${file} differs from its golden file (npm run golden:update rewrites it; review the change)\n${diff}`).toBeNull();
    expect(serverProblems(transcript)).toEqual([]);
  });

  it("plays the same scenario twice to the same bytes", async () => {
    const scenario = path.join(FIXTURES, "03-command-accepted.scenario.json");
    const [first, second] = [await runScenarioFile(scenario, options), await runScenarioFile(scenario, options)];
    expect(renderTranscript(second)).toBe(renderTranscript(first));
  });

  it("sends a command's output as one delta at its exit, however the pipe's reads split it", async () => {
    const scenario = {
      name: "split-output",
      config: { approval_policy: "never", sandbox_mode: "danger-full-access" },
      model: [{ items: [{ type: "exec", cmd: "printf one; sleep 0.2; printf two", callId: "call_split" }] }, { items: [{ type: "message", text: "Done." }] }],
      steps: [
        { request: "thread/start", params: { cwd: "${WORKSPACE}" }, save: { threadId: "result.thread.id" } },
        { request: "turn/start", params: { threadId: "${threadId}", input: [{ type: "text", text: "Print." }] } },
        { waitFor: "turn/completed" },
      ],
    };
    const transcript = await runScenario(scenario, options);
    const deltas = transcript.filter((entry) => entry.dir === "s2c" && (entry.msg as { method?: string }).method === "item/commandExecution/outputDelta");
    expect(deltas.map((entry) => (entry.msg as { params: { delta: string } }).params.delta)).toEqual(["onetwo"]);
  });
});
