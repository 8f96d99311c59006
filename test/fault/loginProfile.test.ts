import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, startThread, tempDir } from "../support/turnHarness.js";

/** Waits (bounded) until `check` holds; the profile runs on its own after the server is gone. */
async function eventually(check: () => boolean, timeoutMs = 8_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  return check();
}

describe("the login profile", () => {
  it("runs only in a read-only sandbox: a lock file it takes (as pyenv's rehash does) is never written, whenever the server stops", async () => {
    const userHome = tempDir("aas-profile-home-");
    const lock = path.join(userHome, "profile.lock");
    // As pyenv's rehash: a lock taken while the profile runs, released by an EXIT trap.
    writeFileSync(path.join(userHome, ".bash_profile"), `touch "$HOME/profile.lock"\ntrap 'rm -f "$HOME/profile.lock"' EXIT\nsleep 0.6\n`);
    for (const moment of [0, 50, 150, 300, 500, 800]) {
      const server = ServerProcess.start({ env: { HOME: userHome } });
      await server.initialize();
      await server.request("thread/start", { cwd: userHome });
      if (moment > 0) await new Promise((resolve) => setTimeout(resolve, moment));
      // Unsandboxed, the profile would hold its lock by now (it sleeps 0.6 s with it).
      expect(existsSync(lock), `lock written by ${moment} ms`).toBe(false);
      const exit = await server.closeStdin();
      expect(exit.code, `stopped at ${moment} ms`).toBe(0);
      expect(exit.elapsedMs).toBeLessThan(2_000);
      expect(existsSync(lock), `lock written when stopped at ${moment} ms`).toBe(false);
    }
  });

  it("a slow profile is visible (a warning naming the file and time, a configWarning once), and the approved command's work is done", async () => {
    const userHome = tempDir("aas-profile-home-");
    writeFileSync(path.join(userHome, ".bash_profile"), "sleep 2.5\n");
    const cwd = tempDir("aas-profile-ws-");
    const { server } = await launch(
      [{ items: [{ type: "exec", cmd: `echo done > ${path.join(cwd, "out.txt")}`, callId: "c1", yield_time_ms: 500 }] }, { items: [{ type: "message", text: "ok" }] }],
      { sandbox: "danger-full-access", env: { HOME: userHome } },
    );
    const threadId = await startThread(server, { cwd });
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === started.result.turn.id);
    expect(await eventually(() => existsSync(path.join(cwd, "out.txt")))).toBe(true);
    expect(readFileSync(path.join(cwd, "out.txt"), "utf8")).toBe("done\n");
    const warning = await server.waitFor((m) => m.method === "configWarning" && m.params.summary === "The login profile is slow");
    expect(warning.params.details).toMatch(new RegExp(`${path.join(userHome, ".bash_profile").replaceAll(".", "\\.")} took \\d+\\.\\d s to run`));
    expect(server.stderr).toContain("The login profile is slow");
    expect(server.messages.filter((m) => m.method === "configWarning" && m.params.summary === "The login profile is slow")).toHaveLength(1);
  });

  it("under --deterministic, a slow profile changes nothing a client sees: golden transcripts hold on a loaded machine", async () => {
    const userHome = tempDir("aas-profile-home-");
    writeFileSync(path.join(userHome, ".bash_profile"), "sleep 2.5\n");
    const cwd = tempDir("aas-profile-ws-");
    const { server } = await launch(
      [{ items: [{ type: "exec", cmd: `echo done > ${path.join(cwd, "out.txt")}`, callId: "c1", yield_time_ms: 500 }] }, { items: [{ type: "message", text: "ok" }] }],
      { sandbox: "danger-full-access", env: { HOME: userHome }, args: ["--deterministic"] },
    );
    const threadId = await startThread(server, { cwd });
    const started = await server.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    await server.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === started.result.turn.id);
    expect(await eventually(() => existsSync(path.join(cwd, "out.txt")))).toBe(true);
    expect(server.messages.filter((m) => m.method === "configWarning")).toEqual([]);
  });
});
