import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { procStatusKb } from "../../bench/lib.mjs";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, startThread, tempDir } from "../support/turnHarness.js";
import { programWorks } from "../support/programs.js";

/** A seeded pseudo-random source, so a failing fault run can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function garbageLine(next: () => number): string {
  const pick = Math.floor(next() * 9);
  switch (pick) {
    case 0:
      return '{"id": 1, "method": "thread/list", "params": {'; // truncated JSON
    case 1:
      return JSON.stringify({ id: "x".repeat(Math.floor(next() * 500)), method: 42, params: [] }); // wrong types
    case 2:
      return JSON.stringify({ id: 1e300, method: "thread/read", params: { threadId: null } }); // huge id
    case 3:
      return "[".repeat(5000) + "]".repeat(5000); // deep nesting
    case 4:
      return Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0x80, 0x81]).toString("latin1"); // invalid UTF-8
    case 5:
      return `{"id":2,"method":"thread/list","params":{"searchTerm":"a\u0000b"}}\u0000`; // NUL bytes
    case 6:
      return JSON.stringify({ id: `big-${next()}`, method: "thread/list", params: { searchTerm: "y".repeat(5 * 1024 * 1024) } }); // 5 MiB string
    case 7:
      return JSON.stringify({ method: "no/such/notification", params: { n: next() } });
    default:
      return JSON.stringify({ jsonrpc: "2.0", result: {}, id: 999_999 }); // a response to nothing
  }
}

/** One system call as `strace -f -y` logs it, in the order the calls ended (writes: began). */
interface Syscall {
  readonly name: string;
  /** The call's arguments and result as strace prints them (file descriptors with their paths). */
  readonly text: string;
}

/**
 * The calls of an `strace -f -y` log. A call another thread's call interrupted is logged as
 * `<unfinished ...>` and `<... name resumed>`; it is placed where it ended, with its arguments.
 */
function syscalls(log: string): Syscall[] {
  const calls: Syscall[] = [];
  const unfinished = new Map<string, string>();
  for (const line of log.split("\n")) {
    const started = /^(\d+) +(\w+)\((.*) <unfinished \.\.\.>$/.exec(line);
    const resumed = /^(\d+) +<\.\.\. (\w+) resumed>(.*)$/.exec(line);
    const whole = /^(\d+) +(\w+)\((.*)$/.exec(line);
    if (started) {
      unfinished.set(started[1]!, started[3]!);
      // A write is observable from its start: the client may read the bytes before it returns.
      if (started[2] === "write") calls.push({ name: "write", text: started[3]! });
    } else if (resumed) {
      if (resumed[2] !== "write") calls.push({ name: resumed[2]!, text: `${unfinished.get(resumed[1]!)}${resumed[3]}` });
      unfinished.delete(resumed[1]!);
    } else if (whole) {
      calls.push({ name: whole[2]!, text: whole[3]! });
    }
  }
  return calls;
}

function childrenOf(pid: number): string[] {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" });
  return table.split("\n").filter((line) => line.trim().split(/\s+/)[1] === String(pid));
}

const straceAvailable = programWorks(["strace", "-V"], "the fsync-ordering fault test", "sudo apt-get install strace");

describe("fault suite", () => {
  it("survives 10,000 random and malformed lines, answering every well-formed request in between", async () => {
    const server = ServerProcess.start({});
    await server.initialize();
    const next = random(20261122);
    const ids: string[] = [];
    let rssPeakKb = 0;
    for (let i = 0; i < 10_000; i++) {
      let line = garbageLine(next);
      // A 5 MiB line now and then is enough to prove the point without taking minutes.
      if (line.length > 1024 * 1024 && i % 500 !== 0) line = garbageLine(() => 0.1);
      server.sendRaw(line + "\n");
      if (i % 100 === 0) {
        const id = `ok-${i}`;
        ids.push(id);
        server.send({ id, method: "thread/loaded/list", params: {} });
        await server.waitFor((m) => m.id === id, `response ${id}`, 20_000);
        rssPeakKb = Math.max(rssPeakKb, procStatusKb(server.child.pid!, "VmRSS") ?? 0);
      }
    }
    for (const id of ids) expect(server.messages.find((m) => m.id === id)?.result).toEqual({ data: [], nextCursor: null });
    expect(rssPeakKb / 1024).toBeLessThan(400);
    expect(server.child.exitCode).toBeNull();
    expect((await server.closeStdin()).code).toBe(0);
  }, 120_000);

  it("after kill -9 during a streaming turn, a restart resumes the thread with every completed item", async () => {
    const home = tempDir("aas-fault-home-");
    const { server, mock } = await launch(
      [
        { items: [{ type: "message", text: "first answer" }] },
        { deltaDelayMs: 20, items: [{ type: "message", repeat: 1000, delta: "z" }] },
      ],
      { home },
    );
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "one" }] });
    await server.waitFor((m) => m.method === "turn/completed");
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "two" }] });
    await server.waitFor((m) => m.method === "item/agentMessage/delta" && m.params.delta === "z");
    await server.signal("SIGKILL");
    server.messages.length = 0;
    const again = await launch([], { home, mock });
    const read = await again.server.request("thread/read", { threadId, includeTurns: true });
    const turns = read.result.thread.turns;
    expect(turns.map((turn: any) => turn.status)).toEqual(["completed", "interrupted"]);
    expect(turns[0].items.map((item: any) => item.text ?? item.content[0].text)).toEqual(["one", "first answer"]);
    expect(turns[1].items[0].content[0].text).toBe("two");
    const resumed = await again.server.request("thread/resume", { threadId });
    expect(resumed.error).toBeUndefined();
    const files = readdirSync(path.join(home, "sessions"), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (const file of files) {
      for (const line of readFileSync(path.join(file.parentPath, file.name), "utf8").trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
    }
  });

  it.skipIf(!straceAvailable)("fsyncs a new thread, and each turn boundary, before the client hears of it (strace)", async () => {
    const log = path.join(tempDir("aas-fault-strace-"), "syscalls.log");
    const { server } = await launch([{ items: [{ type: "message", text: "ok" }] }], {
      wrapper: ["strace", "-f", "-y", "-s", "100000", "-e", "trace=fsync,fdatasync,write", "-o", log],
    });
    const threadId = await startThread(server);
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
    await server.waitFor((m) => m.method === "turn/completed");
    expect((await server.closeStdin()).code).toBe(0);
    const calls = syscalls(readFileSync(log, "utf8"));
    const toClient = (needle: string) => calls.findIndex((call) => call.name === "write" && call.text.startsWith("1<") && call.text.includes(needle));
    const syncedPath = (file: string) => calls.flatMap((call, index) => (/^f(data)?sync$/.test(call.name) && call.text.includes(`${file}>`) && / = 0$/.test(call.text) ? [index] : []));
    const synced = syncedPath(`${threadId}.jsonl`);
    const threadPath = server.messages.find((m) => m.method === "thread/started")!.params.thread.path as string;
    // strace escapes the quotes of the JSON it shows.
    const told = [
      toClient(`\\"result\\":{\\"thread\\":{\\"id\\":\\"${threadId}`),
      toClient(`\\"result\\":{\\"turn\\"`),
      toClient(`\\"method\\":\\"turn/completed\\"`),
    ];
    expect(told.every((index) => index > 0)).toBe(true);
    // The directory that holds the new file was fsynced too (and, on a fresh home, those made for it), before the answer.
    for (const dir of [path.dirname(threadPath), path.dirname(path.dirname(threadPath))]) {
      expect(syncedPath(dir).some((sync) => sync < told[0]!), `fsync of ${dir} before thread/start's answer`).toBe(true);
    }
    // Between one client-visible step and the next, the thread's file was fsynced: the thread, the turn's start, its end.
    for (const [step, index] of told.entries()) {
      const previous = step === 0 ? -1 : told[step - 1]!;
      expect(synced.some((sync) => sync > previous && sync < index), `fsync before step ${step}`).toBe(true);
    }
  });

  it("retries model faults, then fails the turn cleanly when they persist", async () => {
    const faults = [
      { name: "500", response: { httpStatus: 500 } },
      { name: "429 with Retry-After", response: { httpStatus: 429, headers: { "retry-after": "0.05" } } },
      { name: "reset mid-stream", response: { items: [{ type: "message" as const, text: "cut" }], disconnectAfter: 3 } },
      { name: "stalled stream", response: { items: [{ type: "message" as const, text: "stuck" }], stallAfter: 3 } },
    ];
    for (const fault of faults) {
      const { server, mock } = await launch([fault.response, fault.response, fault.response, fault.response], {
        requestRetries: 1,
        streamRetries: 1,
        idleMs: 500,
      });
      const threadId = await startThread(server);
      await server.request("turn/start", { threadId, input: [{ type: "text", text: fault.name }] });
      const completed = await server.waitFor((m) => m.method === "turn/completed", `turn/completed after ${fault.name}`, 20_000);
      expect(completed.params.turn.status, fault.name).toBe("failed");
      const errors = server.messages.filter((m) => m.method === "error").map((m) => m.params.willRetry);
      expect(errors.at(-1), fault.name).toBe(false);
      expect(errors.filter((willRetry) => willRetry).length, fault.name).toBe(1);
      expect(mock.requests.length, fault.name).toBeGreaterThanOrEqual(2);
      expect(server.messages.filter((m) => m.method === "thread/status/changed").at(-1).params.status).toEqual({ type: "systemError" });
      await server.closeStdin();
    }
  }, 90_000);

  it("exits within 2 s, leaving no child process, when stdin closes mid-turn and mid-approval", async () => {
    for (const approval of ["never", "on-request"]) {
      const { server } = await launch(
        [{ items: [{ type: "exec", cmd: "sleep 30", callId: "call_1", yield_time_ms: 30_000, sandbox_permissions: "require_escalated" }] }],
        { approval, sandbox: approval === "never" ? "danger-full-access" : "workspace-write" },
      );
      const threadId = await startThread(server);
      await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
      if (approval === "never") {
        await server.waitFor((m) => m.method === "item/started" && m.params.item.type === "commandExecution");
        await new Promise<void>((resolve) => {
          const check = () => (childrenOf(server.child.pid!).length > 0 ? resolve() : setTimeout(check, 20));
          check();
        });
      } else {
        await server.waitFor((m) => m.method === "item/commandExecution/requestApproval");
      }
      const pid = server.child.pid!;
      const exit = await server.closeStdin();
      expect(exit.code).toBe(0);
      expect(exit.elapsedMs).toBeLessThan(2_000);
      expect(childrenOf(pid)).toEqual([]);
      expect(execFileSync("ps", ["-eo", "args="], { encoding: "utf8" }).split("\n").filter((line) => line.trim() === "sleep 30")).toEqual([]);
    }
  });

  it("loses nothing when the client stops reading stdout for a while, and stays bounded", async () => {
    const { server } = await launch([{ items: [{ type: "message", repeat: 50_000, delta: "d" }] }]);
    const threadId = await startThread(server);
    server.child.stdout.pause();
    server.send({ id: "t", method: "turn/start", params: { threadId, input: [{ type: "text", text: "go" }] } });
    let peakKb = 0;
    // Not reading for 10 s is the fault itself; memory is sampled meanwhile.
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      peakKb = Math.max(peakKb, procStatusKb(server.child.pid!, "VmRSS") ?? 0);
    }
    server.child.stdout.resume();
    const completed = await server.waitFor((m) => m.method === "turn/completed", "turn/completed", 60_000);
    expect(completed.params.turn.items[0].text.length).toBe(50_000);
    expect(server.messages.filter((m) => m.method === "item/agentMessage/delta")).toHaveLength(50_000);
    expect(peakKb / 1024).toBeLessThan(400);
  }, 90_000);
});
