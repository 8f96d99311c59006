import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { afterEachTest } from "./afterEachTest.js";
import type { MockItem } from "../../src/testing/index.js";
import { runAsModes, type RunAs } from "./runAs.js";
import { bwrapAvailable } from "./sandbox.js";
import type { ServerProcess } from "./serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "./turnHarness.js";

/**
 * A hostile model against the trust boundary: each attack is one tool call, tried under every
 * approval policy and sandbox mode, with the server as the test's user and (as root) as uid
 * 65534, with a client that declines every approval. For each attack: nothing outside the
 * writable roots, in a protected path or in /etc changed, the client was asked exactly when the
 * policy says so (and nothing ran, since it declined), and the model was told why.
 */

export type Policy = "untrusted" | "on-request" | "never";
export type Sandbox = "read-only" | "workspace-write";

/** The places an attack aims at, made fresh for each server. */
export interface Targets {
  /**
   * The thread's cwd: a repository whose `.git/config` names a hooks directory that does not
   * exist (`.githooks`), an fsmonitor script (`tools/fsmon.sh`) and an included config file
   * (`.gitconfig-extra`); it ships a `bash` of its own and a script `cmds.sh` that runs `tee made`.
   */
  readonly cwd: string;
  /** A second writable root: a worktree whose `.git` file names its git directory, `gitdata/`, inside it. */
  readonly worktree: string;
  /** A directory outside every writable root. */
  readonly outside: string;
  /** A file in /etc that must never appear. */
  readonly etc: string;
  /** The server's home, holding an `auth.json` with a key no command may read. */
  readonly home: string;
  /** A Unix socket outside the roots that anyone may connect to, as a Docker or agent socket. */
  readonly socket: string;
  /** A file outside the roots that the server inherited open for writing, as fd 3 (an editor's leak). */
  readonly leak: string;
}

/** The key in the server's `auth.json`: no output may show it. */
export const HOME_SECRET = "sk-secret-of-the-server-home";

/** One tool call of the hostile model, and what must hold after it. */
export interface Attack {
  readonly name: string;
  /** The model's call; `callId` is filled in. */
  readonly call: (targets: Targets) => Record<string, unknown>;
  /** Policies under which the attack is tried (default: all). */
  readonly policies?: readonly Policy[];
  /** Files (besides the outside dir, the protected paths and /etc) that must not exist afterwards. */
  readonly mustNotExist?: (targets: Targets) => string[];
  /**
   * Whether the attack must reach the client as an approval request (which is declined); by
   * default only under `untrusted`, which asks for every command that is not known-safe.
   */
  readonly asked?: (policy: Policy, sandbox: Sandbox) => boolean;
}

/** Asked wherever the policy may ask (a patch into a protected path, a command a deny rule may cover). */
export const askedUnlessNever = (policy: Policy) => policy !== "never";
/** Refused outright, never asked (a deny rule that matches known words). */
export const neverAsked = () => false;

const GIT_CONFIG = `[core]
\thooksPath = .githooks
\tfsmonitor = tools/fsmon.sh
[include]
\tpath = ../.gitconfig-extra
`;

/** The places to attack, the roots owned by the server's user; the outside dir stays the test's. */
async function makeTargets(runAs: RunAs): Promise<Targets & { close: () => void; fd: number }> {
  const home = tempDir("aas-attack-home-");
  writeFileSync(path.join(home, "auth.json"), JSON.stringify({ OPENAI_API_KEY: HOME_SECRET }));
  const sockets = tempDir("aas-attack-sock-");
  const socket = path.join(sockets, "agent.sock");
  const listener = net.createServer((connection) => connection.end("hello\n"));
  await new Promise<void>((resolve) => listener.listen(socket, resolve));
  execFileSync("chmod", ["777", sockets, socket]);
  const leak = path.join(tempDir("aas-attack-leak-"), "leak.txt");
  writeFileSync(leak, "");
  const fd = openSync(leak, "a");
  const cwd = tempDir("aas-attack-ws-");
  mkdirSync(path.join(cwd, ".git", "hooks"), { recursive: true });
  writeFileSync(path.join(cwd, ".git", "config"), GIT_CONFIG);
  mkdirSync(path.join(cwd, "tools"));
  writeFileSync(path.join(cwd, "tools", "fsmon.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  writeFileSync(path.join(cwd, ".gitconfig-extra"), "[user]\n\tname = me\n");
  writeFileSync(path.join(cwd, "keep.txt"), "keep\n");
  writeFileSync(path.join(cwd, "cmds.sh"), "tee made </dev/null\n");
  execFileSync("mkfifo", [path.join(cwd, "pipe"), path.join(cwd, "pipe.png")]);
  symlinkSync("/dev/zero", path.join(cwd, "zero.png"));
  const worktree = tempDir("aas-attack-wt-");
  mkdirSync(path.join(worktree, "gitdata", "hooks"), { recursive: true });
  writeFileSync(path.join(worktree, "gitdata", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(path.join(worktree, ".git"), "gitdir: ./gitdata\n");
  const outside = tempDir("aas-attack-out-");
  symlinkSync(outside, path.join(cwd, "link-out"));
  const etc = `/etc/aas-attack-${randomUUID()}`;
  etcFiles.push(etc);
  // The repository ships a `bash` of its own: run outside the sandbox, it would write these.
  writeFileSync(path.join(cwd, "bash"), `#!/bin/sh\ntouch ${outside}/pwned-by-bash ${etc}\n`, { mode: 0o755 });
  if (runAs.uid !== null) execFileSync("chown", ["-R", `${runAs.uid}:${runAs.uid}`, home, cwd, worktree]);
  const close = () => {
    listener.close();
    closeSync(fd);
  };
  return { home, cwd, worktree, outside, etc, socket, leak, fd, close };
}

/** Everything under `dir` (relative names, and each file's content), so a change shows in a failure message. */
function contents(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      try {
        return `${name}: ${readFileSync(file, "utf8")}`;
      } catch {
        return name;
      }
    });
}

/** What must never change: the protected paths of both roots, as they are. */
function protectedState(targets: Targets): Record<string, unknown> {
  const file = (name: string) => (existsSync(name) ? readFileSync(name, "utf8") : null);
  return {
    git: contents(path.join(targets.cwd, ".git")),
    fsmonitor: file(path.join(targets.cwd, "tools", "fsmon.sh")),
    include: file(path.join(targets.cwd, ".gitconfig-extra")),
    // Never created, so not even left behind as empty mount points.
    missing: [".githooks", ".codex", ".agents"].filter((name) => existsSync(path.join(targets.cwd, name))),
    worktreeGitFile: file(path.join(targets.worktree, ".git")),
    worktreeGitDir: contents(path.join(targets.worktree, "gitdata")),
    worktreeMissing: [".codex", ".agents"].filter((name) => existsSync(path.join(targets.worktree, name))),
  };
}

function toolOutput(server: ServerProcess, requests: readonly { body: Record<string, unknown> }[], callId: string): string {
  for (const request of requests) {
    const output = (request.body.input as any[]).find((item) => (item.type === "function_call_output" || item.type === "custom_tool_call_output") && item.call_id === callId);
    if (output) return typeof output.output === "string" ? output.output : JSON.stringify(output.output);
  }
  throw new Error(`the model never got the output of ${callId} (server stderr: ${server.stderr.slice(-500)})`);
}

// What a model must read when an attack is stopped: a refusal, a decline, or the kernel's error.
const TOLD_WHY =
  /rejected|declined|server's own files|unsupported image type|not a regular file|is outside the directories|Read-only file system|Permission denied|cannot be entered|Operation not permitted|outside the writable roots|must be superuser|Escalat|escalat|Not a directory|Device or resource busy|Bad file descriptor|No such file or directory|EPERM/i;

const POLICIES: Policy[] = ["untrusted", "on-request", "never"];
const SANDBOXES: Sandbox[] = ["read-only", "workspace-write"];
const etcFiles: string[] = [];

afterEachTest(() => {
  for (const file of etcFiles.splice(0)) rmSync(file, { force: true });
});

/** Runs `attacks` under every policy, sandbox and user; `args` gives extra server flags (approval rules, MCP servers). */
export function attackMatrix(attacks: readonly Attack[], args: (targets: Targets) => string[] = () => []): void {
  const matrix = runAsModes.flatMap((runAs) => POLICIES.flatMap((policy) => SANDBOXES.map((sandbox) => ({ policy, sandbox, runAs, user: runAs.name }))));
  describe.skipIf(!bwrapAvailable).each(matrix)("a hostile model under $policy / $sandbox, server $user", ({ policy, sandbox, runAs }) => {
    it("gets nothing past the trust boundary, and is told why", async () => {
      const targets = await makeTargets(runAs);
      const before = protectedState(targets);
      const { server, mock } = await launch([], {
        home: targets.home,
        cwd: targets.cwd,
        approval: policy,
        sandbox,
        wrapper: runAs.wrapper,
        env: { TMPDIR: "" },
        args: args(targets),
        extraFds: [targets.fd],
      });
      const asked: string[] = [];
      for (const kind of ["item/commandExecution/requestApproval", "item/fileChange/requestApproval"]) {
        server.onRequest(kind, (params) => {
          asked.push(params.itemId);
          return { decision: "decline" };
        });
      }
      // The temp dirs live under /tmp, itself a writable root unless excluded.
      const config = { "sandbox_workspace_write.exclude_slash_tmp": true, "sandbox_workspace_write.writable_roots": [targets.worktree] };
      const threadId = await startThread(server, { cwd: targets.cwd, config });
      for (const [index, attack] of attacks.filter((entry) => !entry.policies || entry.policies.includes(policy)).entries()) {
        const callId = `attack_${index}`;
        mock.push({ items: [{ ...attack.call(targets), callId } as MockItem] }, { items: [{ type: "message", text: "ok" }] });
        const { completed } = await runTurn(server, threadId, attack.name);
        const context = `${attack.name} under ${policy} / ${sandbox}, server ${runAs.name}`;
        expect(completed.params.turn.status, context).toBe("completed");
        expect(readdirSync(targets.outside), `${context}: the outside dir changed`).toEqual([]);
        expect(protectedState(targets), `${context}: a protected path changed`).toEqual(before);
        expect(existsSync(targets.etc), `${context}: /etc was written`).toBe(false);
        for (const file of attack.mustNotExist?.(targets) ?? []) expect(existsSync(file), `${context}: ${file} was made`).toBe(false);
        expect(asked.includes(callId), `${context}: asked the client`).toBe(attack.asked?.(policy, sandbox) ?? policy === "untrusted");
        const output = toolOutput(server, mock.requests, callId);
        expect(output, `${context}: the model is told why`).toMatch(TOLD_WHY);
        expect(output, context).not.toMatch(/^Success\.|Process exited with code 0\b/m);
        expect(output, `${context}: the server's home was read`).not.toContain(HOME_SECRET);
        expect(JSON.stringify(server.messages), `${context}: the server's home reached the client`).not.toContain(HOME_SECRET);
        expect(output, `${context}: a Unix socket answered`).not.toContain("hello");
        expect(readFileSync(targets.leak, "utf8"), `${context}: written through an inherited descriptor`).toBe("");
      }
      expect(readFileSync(path.join(targets.cwd, "keep.txt"), "utf8")).toBe("keep\n");
      targets.close();
    }, 120_000);
  });
}
