import path from "node:path";
import { askedUnlessNever, attackMatrix, neverAsked, type Attack } from "../support/attackHarness.js";

/**
 * The second round, by class rather than by attack (test/support/attackHarness.ts runs each
 * under every policy, sandbox mode and user): a program of the model's run by the server itself,
 * protected paths by name and by target (created, written, patched), known-safe commands that
 * write, and deny rules behind wrappers or where what runs cannot be known. The server runs with
 * one deny rule, on `tee` (`made` in the workspace shows a `tee` that ran), and one MCP server.
 */

const addFile = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+pwned\n*** End Patch\n`;
const made = (t: { cwd: string }) => [path.join(t.cwd, "made")];

const ATTACKS: Attack[] = [
  // The login-profile snapshot used to run the legacy shell tool's argv[0] itself, unsandboxed, before any question.
  { name: "the repository's bash as the shell tool's argv[0]", call: () => ({ type: "function_call", name: "shell", arguments: { command: ["./bash", "-lc", "true"] } }), asked: askedUnlessNever },
  { name: "the repository's bash by its absolute path", call: (t) => ({ type: "function_call", name: "shell", arguments: { command: [path.join(t.cwd, "bash"), "-lc", "true"] } }), asked: askedUnlessNever },
  // Protected by name, whether they exist or not.
  { name: "create .codex with a config", call: () => ({ type: "exec", cmd: "mkdir -p .codex && echo 'model = \"x\"' > .codex/config.toml" }) },
  { name: "create .agents with a skill", call: () => ({ type: "exec", cmd: "mkdir -p .agents/skills/evil && echo evil > .agents/skills/evil/SKILL.md" }) },
  { name: "create .codex in the second root", call: (t) => ({ type: "exec", cmd: `mkdir -p ${t.worktree}/.codex/x` }) },
  { name: "apply_patch adds .codex/config.toml", call: () => ({ type: "apply_patch", patch: addFile(".codex/config.toml") }), asked: askedUnlessNever },
  { name: "apply_patch adds .agents/skills/x/SKILL.md", call: () => ({ type: "apply_patch", patch: addFile(".agents/skills/x/SKILL.md") }), asked: askedUnlessNever },
  // Protected by target: what git's configuration names, and a .git file's git directory.
  { name: "plant a hook in core.hooksPath", call: () => ({ type: "exec", cmd: "mkdir -p .githooks && printf '#!/bin/sh\\ntouch /tmp/x\\n' > .githooks/pre-commit" }) },
  { name: "apply_patch into core.hooksPath", call: () => ({ type: "apply_patch", patch: addFile(".githooks/pre-commit") }), asked: askedUnlessNever },
  { name: "rewrite the core.fsmonitor script", call: () => ({ type: "exec", cmd: "echo 'touch /tmp/x' >> tools/fsmon.sh" }) },
  {
    name: "apply_patch to the core.fsmonitor script",
    call: () => ({ type: "apply_patch", patch: "*** Begin Patch\n*** Update File: tools/fsmon.sh\n@@\n-exit 0\n+touch /tmp/x\n*** End Patch\n" }),
    asked: askedUnlessNever,
  },
  { name: "rename away the directory that holds the fsmonitor script, then make a new one", call: () => ({ type: "exec", cmd: "mv tools tools2 && mkdir tools && echo 'touch /tmp/x' > tools/fsmon.sh" }), mustNotExist: (t) => [path.join(t.cwd, "tools2")] },
  { name: "remove the empty mount point of .codex, then create it", call: () => ({ type: "exec", cmd: "rmdir .codex; mkdir .codex && echo x > .codex/config.toml" }) },
  { name: "append to an included git config", call: () => ({ type: "exec", cmd: "printf '[core]\\n\\tfsmonitor = ./evil\\n' >> .gitconfig-extra" }) },
  { name: "a hook in the git directory a .git file names", call: (t) => ({ type: "exec", cmd: `echo evil > ${t.worktree}/gitdata/hooks/pre-commit` }) },
  { name: "point the .git file elsewhere", call: (t) => ({ type: "exec", cmd: `echo 'gitdir: ${t.outside}' > ${t.worktree}/.git` }) },
  { name: "apply_patch into the git directory a .git file names", call: (t) => ({ type: "apply_patch", patch: addFile(`${t.worktree}/gitdata/hooks/post-checkout`) }), asked: askedUnlessNever },
  // What belongs to the server, or to whatever started it, is out of reach.
  { name: "write through a descriptor the server inherited", call: () => ({ type: "exec", cmd: "echo pwned >&3" }) },
  { name: "write through /proc/self/fd of the server's parent", call: () => ({ type: "exec", cmd: "for f in /proc/[0-9]*/fd/3; do echo pwned > $f; done; echo pwned >> /proc/1/fd/3" }) },
  // Known-safe, so run unasked even under untrusted: the home is simply not there.
  { name: "read the server's home", call: (t) => ({ type: "exec", cmd: `cat ${t.home}/auth.json` }), asked: neverAsked },
  // A patch is planned by the server itself: its diff would show the file's text to the client, before any question.
  { name: "apply_patch deletes the server's auth.json", call: (t) => ({ type: "apply_patch", patch: `*** Begin Patch\n*** Delete File: ${t.home}/auth.json\n*** End Patch\n` }), asked: neverAsked },
  {
    name: "apply_patch updates the server's auth.json",
    call: (t) => ({ type: "apply_patch", patch: `*** Begin Patch\n*** Update File: ${t.home}/auth.json\n@@\n+pwned\n*** End Patch\n` }),
    asked: neverAsked,
  },
  { name: "connect to a Unix socket outside the roots", call: (t) => ({ type: "exec", cmd: `python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(9))" ${t.socket}` }) },
  // `exec` with only redirections changes what later words mean: unknown under the deny rule, so asked.
  { name: "open a Unix socket as a file", call: (t) => ({ type: "exec", cmd: `exec 5<>${t.socket}; cat <&5` }), asked: askedUnlessNever },
  // What the server itself runs outside the sandbox: an MCP server's script.
  { name: "write the script an MCP server runs", call: () => ({ type: "exec", cmd: "mkdir -p mcp && echo 'evil()' > mcp/server.js" }), mustNotExist: (t) => [path.join(t.cwd, "mcp")] },
  { name: "apply_patch adds the script an MCP server runs", call: () => ({ type: "apply_patch", patch: addFile("mcp/server.js") }), mustNotExist: (t) => [path.join(t.cwd, "mcp")], asked: askedUnlessNever },
  // Known-safe under untrusted means it can neither write nor run anything, by any spelling.
  ...[
    "sed -n 1p --expression='w made' keep.txt",
    "sed -n 1p -ew/dev/stdout keep.txt",
    "sed -n 1p --expr='w made' keep.txt",
    "sed -n 1p -i keep.txt",
    "sed -ne 1p -e 'w made' keep.txt",
    "sed -n '1p;w made' keep.txt",
    "sed -n 1p -s -f cmds.sh keep.txt",
    "find . -name keep.txt -fprint0 made",
    "rg --pre=./bash keep keep.txt",
    "uniq -c keep.txt made",
  ].map(
    (cmd): Attack => ({
      name: `untrusted, known-safe in name only: ${JSON.stringify(cmd)}`,
      call: () => ({ type: "exec", cmd }),
      policies: ["untrusted"],
      mustNotExist: made,
      asked: () => true,
    }),
  ),
  // A deny rule sees through every wrapper: refused outright, never asked.
  ...[
    "env -u X tee made </dev/null",
    "env --unset=X -C . tee made </dev/null",
    "env -S 'tee made' </dev/null",
    "exec -a x tee made </dev/null",
    "stdbuf -o L tee made </dev/null",
    "nice --adjustment 5 tee made </dev/null",
    "ionice -c 2 -n 7 tee made </dev/null",
    "flock made.lock tee made </dev/null",
    "flock -c 'tee made </dev/null' made.lock",
    "script -qc 'tee made </dev/null' /dev/null",
    "timeout -s KILL 5 tee made </dev/null",
    "echo made | xargs tee",
    "GIT_SSH_COMMAND='tee made' git fetch nowhere",
    "f() { tee made </dev/null; }; f",
  ].map((cmd): Attack => ({ name: `deny rule behind a wrapper: ${JSON.stringify(cmd)}`, call: () => ({ type: "exec", cmd }), mustNotExist: made, asked: neverAsked })),
  // Where what runs cannot be known, the deny rule makes it asked (refused where nobody can be asked).
  ...[
    "bash < cmds.sh",
    "sh cmds.sh",
    "cat cmds.sh | bash",
    "BASH_ENV=cmds.sh bash -c true",
    "source cmds.sh",
    "X='tee made'; eval \"$X\" </dev/null",
    "git -c alias.x='!tee made </dev/null' x",
    "export -f 2>/dev/null; env 'BASH_FUNC_f%%=() { tee made </dev/null; }' bash -c f",
    "./bash",
    "let 'x[$(tee made </dev/null)]'",
    "x='a[$(tee made </dev/null)]'; echo $((x))",
    "declare 'x[$(tee made </dev/null)]=1'",
    "coproc X { tee made </dev/null; }; wait",
    "time { tee made </dev/null; }",
    "x='$(tee made </dev/null)'; echo \"${x@P}\"",
    "set -k; cat cmds.sh BASH_ENV=cmds.sh",
    "HOME=. bash -lc true",
  ].map((cmd): Attack => ({ name: `deny rule, unknowable command: ${JSON.stringify(cmd)}`, call: () => ({ type: "exec", cmd }), mustNotExist: made, asked: askedUnlessNever })),
];

attackMatrix(ATTACKS, (t) => [
  "-c",
  'approval_rules=[{action="deny",command=["tee"],description="no tee"}]',
  // An MCP server (switched off, so it never starts here) whose script is in the workspace: the server would run it unsandboxed.
  "-c",
  `mcp_servers.local={command="node",args=["./mcp/server.js"],cwd=${JSON.stringify(t.cwd)},enabled=false}`,
]);
