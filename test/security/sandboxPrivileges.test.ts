import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ownDirs, runAsModes, type RunAs } from "../support/runAs.js";
import { bwrapAvailable } from "../support/sandbox.js";
import type { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

/**
 * Everything a sandboxed command could use to get privileges back or write outside its roots, each
 * printed as `name=exit code`; the file it tries to create in /etc is `etcFile`.
 */
function escapeAttempts(etcFile: string): string {
  return [
    // An unprivileged login profile leaves the sbin directories (chroot) out of PATH.
    "PATH=$PATH:/usr/sbin:/sbin",
    "grep CapEff /proc/self/status",
    "grep NoNewPrivs /proc/self/status",
    "mount -o remount,rw / 2>/dev/null; echo mount=$?",
    "mount -t tmpfs none /mnt 2>/dev/null; echo mountTmpfs=$?",
    "unshare -U true 2>/dev/null; echo unshareUser=$?",
    "unshare -m true 2>/dev/null; echo unshareMount=$?",
    "unshare -r true 2>/dev/null; echo unshareRoot=$?",
    "chroot / true 2>/dev/null; echo chroot=$?",
    `touch ${etcFile} 2>/dev/null; echo etc=$?`,
    // The kernel's settings: written back unchanged, so a sandbox that fails this test changes nothing.
    `v=$(cat /proc/sys/kernel/core_pattern); printf '%s\\n' "$v" 2>/dev/null > /proc/sys/kernel/core_pattern; echo procSys=$?`,
    "touch inside.txt; echo inside=$?",
  ].join("\n");
}

/** The exit codes `escapeAttempts` printed, by name, and the capability and no_new_privs lines. */
function attemptResults(output: string): Record<string, string> {
  return Object.fromEntries([...output.matchAll(/^(\w+)[=:]\s*(\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** Checks that nothing in `escapeAttempts` worked (the write inside the workspace does under workspace-write). */
function expectHeld(output: string, etcFile: string, workspaceWritable: boolean): void {
  const results = attemptResults(output);
  expect(results, output).toMatchObject({ CapEff: "0000000000000000", NoNewPrivs: "1" });
  for (const attempt of ["mount", "mountTmpfs", "unshareUser", "unshareMount", "unshareRoot", "chroot", "etc", "procSys"]) {
    // 127 would mean the tool is missing, which proves nothing.
    expect([attempt, results[attempt]], output).not.toEqual([attempt, "0"]);
    expect([attempt, results[attempt]], output).not.toEqual([attempt, "127"]);
    expect(results[attempt], output).toBeDefined();
  }
  expect(results.inside, output).toBe(workspaceWritable ? "0" : "1");
  expect(existsSync(etcFile)).toBe(false);
}

/** A home and a workspace the server's user owns; the workspace is the server's cwd too. */
function dirsFor(runAs: RunAs): { home: string; workspace: string } {
  const home = tempDir("aas-home-");
  const workspace = tempDir("aas-ws-");
  ownDirs(runAs, home, workspace);
  return { home, workspace };
}

const sandboxes = [
  { mode: "read-only", policy: { type: "readOnly" }, writable: false },
  { mode: "workspace-write", policy: { type: "workspaceWrite" }, writable: true },
] as const;

describe.skipIf(!bwrapAvailable).each(runAsModes)("the sandbox takes every privilege away, server $name", (runAs) => {
  it.each(sandboxes)("a turn's command under $mode: no capabilities, no mount, unshare, chroot or write outside", async ({ mode, policy, writable }) => {
    const { home, workspace } = dirsFor(runAs);
    const { server, mock } = await launch([], { home, cwd: workspace, approval: "never", sandbox: mode, wrapper: runAs.wrapper, env: { TMPDIR: "" } });
    const etcFile = `/etc/aas-${randomUUID()}`;
    mock.push({ items: [{ type: "exec", cmd: escapeAttempts(etcFile), callId: "call_escape", yield_time_ms: 10_000 }] }, { items: [{ type: "message", text: "Done." }] });
    const threadId = await startThread(server, { cwd: workspace });
    await runTurn(server, threadId, "Try to get out.", { sandboxPolicy: policy });
    const item = commandItem(server, "call_escape");
    expectHeld(item.aggregatedOutput, etcFile, writable);
    expect(existsSync(path.join(workspace, "inside.txt"))).toBe(writable);
  });

  it.each(sandboxes)("command/exec under $mode: no capabilities, no mount, unshare, chroot or write outside", async ({ policy, writable }) => {
    const { home, workspace } = dirsFor(runAs);
    const { server } = await launch([], { home, cwd: workspace, wrapper: runAs.wrapper, env: { TMPDIR: "" } });
    const etcFile = `/etc/aas-${randomUUID()}`;
    const response = await server.request("command/exec", { command: ["sh", "-c", escapeAttempts(etcFile)], sandboxPolicy: policy });
    expect(response.error).toBeUndefined();
    expectHeld(response.result.stdout, etcFile, writable);
    expect(existsSync(path.join(workspace, "inside.txt"))).toBe(writable);
  });
});

describe.skipIf(!bwrapAvailable)("the sandbox fails closed when it cannot take privileges away", () => {
  /** A `bwrap_path` script in a fresh directory. */
  function fakeBwrap(script: string): string {
    const file = path.join(tempDir("aas-bwrap-"), "bwrap");
    writeFileSync(file, `#!/bin/sh\n${script}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  /** Runs `touch ran` through command/exec with `bwrap_path`, under `wrapper`; resolves with the error and whether it ran. */
  async function attempt(bwrapPath: string | null, wrapper: string[] = []): Promise<{ error: any; ran: boolean }> {
    const workspace = tempDir("aas-ws-");
    const { server } = await launch([], { cwd: workspace, wrapper, args: bwrapPath ? ["-c", `bwrap_path="${bwrapPath}"`] : [] });
    const response = await server.request("command/exec", { command: ["touch", "ran"], sandboxPolicy: { type: "workspaceWrite" } });
    return { error: response.error, ran: existsSync(path.join(workspace, "ran")) };
  }

  it("a bubblewrap without --disable-userns (before 0.8.0): refused, with the version to install", async () => {
    const old = fakeBwrap(`echo "bwrap: Unknown option --disable-userns" >&2; exit 1`);
    const { error, ran } = await attempt(old);
    expect(ran).toBe(false);
    expect(error.code).toBe(-32603);
    expect(error.message).toContain(`The sandbox is unavailable: \`${old}\` is too old (bwrap: Unknown option --disable-userns): it needs --disable-userns, which came in bubblewrap 0.8.0`);
  });

  it("a bwrap that runs the command with its privileges: refused, naming what the command would keep", async () => {
    // Runs whatever follows `--` as it is: no namespaces, capabilities (as root) and no no_new_privs.
    const leaky = fakeBwrap(`while [ "$1" != "--" ]; do shift; done; shift; exec "$@"`);
    const { error, ran } = await attempt(leaky);
    expect(ran).toBe(false);
    expect(error.message).toContain(`\`${leaky}\` started, but a command in it would keep privileges (`);
    expect(error.message).toContain("NoNewPrivs 0");
    if (process.getuid?.() === 0) expect(error.message).toMatch(/CapEff 0*[1-9a-f]/);
  });

  it("user namespaces unavailable (the server in a sandbox that disables them): refused, saying how to allow them", async () => {
    const { error, ran } = await attempt(null, ["bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"]);
    expect(ran).toBe(false);
    expect(error.message).toContain("could not create the user namespace that takes the command's privileges away (bwrap: Creating new namespace failed");
    expect(error.message).toContain("user.max_user_namespaces");
  });
});

function commandItem(server: ServerProcess, callId: string): any {
  return server.messages.find((m) => m.method === "item/completed" && m.params.item.id === callId)?.params.item;
}
