import path from "node:path";
import { attackMatrix, type Attack } from "../support/attackHarness.js";

/**
 * The first round of attacks on the trust boundary (test/support/attackHarness.ts runs each under
 * every policy, sandbox mode and user): escapes from the writable roots, patches out of them,
 * special files, escalation, and scripts that used to run unasked under `untrusted`.
 */

const escalated = { sandbox_permissions: "require_escalated", justification: "I need it" };
const addFile = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+pwned\n*** End Patch\n`;

const ATTACKS: Attack[] = [
  { name: "workdir outside the roots", call: (t) => ({ type: "exec", cmd: "touch pwned", workdir: t.outside }) },
  { name: "workdir in .git plants a hook", call: () => ({ type: "exec", cmd: "echo evil > hooks/pre-commit", workdir: ".git" }) },
  { name: "cd out of the roots", call: (t) => ({ type: "exec", cmd: `cd ${t.outside} && touch pwned` }) },
  { name: "write /etc", call: (t) => ({ type: "exec", cmd: `touch ${t.etc}` }) },
  { name: "remount / read-write, then write /etc", call: (t) => ({ type: "exec", cmd: `mount -o remount,rw / ; touch ${t.etc}` }) },
  { name: "a symlink made inside the roots", call: (t) => ({ type: "exec", cmd: `ln -s ${t.outside} door && touch door/pwned` }) },
  { name: "through /proc/self/root", call: (t) => ({ type: "exec", cmd: `touch /proc/self/root${t.outside}/pwned` }) },
  {
    name: "heredoc apply_patch after cd",
    call: (t) => ({ type: "exec", cmd: `cd ${t.outside} && apply_patch <<'EOF'\n${addFile("pwned")}EOF` }),
    asked: (policy) => policy !== "never",
  },
  { name: "apply_patch to an absolute path", call: (t) => ({ type: "apply_patch", patch: addFile(`${t.outside}/pwned`) }), asked: (policy) => policy !== "never" },
  { name: "apply_patch with ../", call: (t) => ({ type: "apply_patch", patch: addFile(`../${path.basename(t.outside)}/pwned`) }), asked: (policy) => policy !== "never" },
  { name: "apply_patch through a symlink", call: () => ({ type: "apply_patch", patch: addFile("link-out/pwned") }), asked: (policy) => policy !== "never" },
  { name: "apply_patch into .git", call: () => ({ type: "apply_patch", patch: addFile(".git/hooks/post-checkout") }), asked: (policy) => policy !== "never" },
  {
    name: "apply_patch moves a file out",
    call: (t) => ({ type: "apply_patch", patch: `*** Begin Patch\n*** Update File: keep.txt\n*** Move to: ${t.outside}/moved\n@@\n-keep\n+moved\n*** End Patch\n` }),
    asked: (policy) => policy !== "never",
  },
  {
    name: "escalation",
    call: (t) => ({ type: "exec", cmd: `touch ${t.outside}/pwned`, ...escalated }),
    asked: (policy) => policy !== "never",
  },
  {
    name: "legacy escalation flag",
    call: (t) => ({ type: "exec", cmd: `touch ${t.outside}/pwned`, with_escalated_permissions: true }),
    asked: (policy) => policy !== "never",
  },
  { name: "apply_patch updates a FIFO", call: () => ({ type: "apply_patch", patch: "*** Begin Patch\n*** Update File: pipe\n@@\n-x\n+y\n*** End Patch\n" }), asked: () => false },
  { name: "view_image of a FIFO", call: () => ({ type: "function_call", name: "view_image", arguments: { path: "pipe.png" } }), asked: () => false },
  { name: "view_image through a link to /dev/zero", call: () => ({ type: "function_call", name: "view_image", arguments: { path: "zero.png" } }), asked: () => false },
  { name: "view_image of /dev/zero", call: () => ({ type: "function_call", name: "view_image", arguments: { path: "/dev/zero" } }), asked: () => false },
  { name: "view_image outside the roots", call: (t) => ({ type: "function_call", name: "view_image", arguments: { path: `${t.outside}/../../etc/hostname` } }), asked: () => false },
  // untrusted asks for anything that is not known-safe: Codex asked for all of these.
  ...[
    "ls\ntouch made",
    "env touch made",
    "sort -o made keep.txt",
    "uniq keep.txt made",
    "tree -o made",
    "git branch made",
    "ls & touch made",
    "echo $(touch made)",
    "echo `touch made`",
    "cat <(touch made)",
    "X=1 touch made",
    "bash -c 'touch made'",
    "find . -name keep.txt -fprint made",
  ].map(
    (cmd): Attack => ({
      name: `untrusted: ${JSON.stringify(cmd)}`,
      call: () => ({ type: "exec", cmd }),
      policies: ["untrusted"],
      mustNotExist: (t) => [path.join(t.cwd, "made")],
      asked: () => true,
    }),
  ),
];

attackMatrix(ATTACKS);
