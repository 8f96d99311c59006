import { describe, expect, it } from "vitest";
import { directLauncher } from "../../src/agent/boundary/launch.js";
import { CommandGate } from "../../src/agent/exec/commandGate.js";
import { killProcessGroup, processExit, spawnProcessGroup } from "../../src/agent/exec/processGroup.js";

const settled = <T>(promise: Promise<T>) => {
  const state = { done: false };
  void promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
};
/** Lets every pending promise and I/O callback run once. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("the command gate (editor calls against running commands)", () => {
  it("holds back a command's start until the editor call in flight is answered; an interrupt ends the wait", async () => {
    const gate = new CommandGate();
    let answer: () => void = () => undefined;
    const call = gate.whileNoCommandRuns(() => new Promise<string>((resolve) => (answer = () => resolve("editor"))), async () => "disk");
    const permit = gate.startPermit();
    const waiting = settled(permit);
    const interrupt = new AbortController();
    const interrupted = gate.startPermit(interrupt.signal);
    await turn();
    expect(waiting.done).toBe(false);
    interrupt.abort(new Error("interrupted"));
    await expect(interrupted).rejects.toThrow("interrupted");
    answer();
    expect(await call).toBe("editor");
    await turn();
    expect(waiting.done).toBe(true);
    expect(gate.state()).toEqual({ running: 1, editorCalls: 0 });
    (await permit).release();
    expect(gate.state()).toEqual({ running: 0, editorCalls: 0 });
  });

  it("uses the disk while a command runs, the editor again once it exited; a spawn that throws counts for nothing", async () => {
    const gate = new CommandGate();
    const child = spawnProcessGroup(await gate.startPermit(), directLauncher(["sh", "-c", "read line"]), { cwd: process.cwd(), env: { PATH: process.env.PATH ?? "" }, stdin: "pipe" });
    expect(await gate.whileNoCommandRuns(async () => "editor", async () => "disk")).toBe("disk");
    killProcessGroup(child);
    await processExit(child);
    await turn();
    expect(await gate.whileNoCommandRuns(async () => "editor", async () => "disk")).toBe("editor");
    const broken = () => {
      throw new Error("no launch");
    };
    await expect(async () => spawnProcessGroup(await gate.startPermit(), broken, { cwd: process.cwd(), env: {}, stdin: "ignore" })).rejects.toThrow("no launch");
    await turn();
    expect(gate.state()).toEqual({ running: 0, editorCalls: 0 });
  });

  it("holds commands back past the call for what it handed holdUntil (an editor's write it stopped waiting for)", async () => {
    const gate = new CommandGate();
    let written: () => void = () => undefined;
    const write = new Promise<void>((resolve) => (written = resolve));
    expect(await gate.whileNoCommandRuns(async (holdUntil) => (holdUntil(write), "went on"), async () => "disk")).toBe("went on");
    const waiting = settled(gate.startPermit());
    await turn();
    expect(waiting.done).toBe(false);
    written();
    await turn();
    expect(waiting.done).toBe(true);
  });
});
