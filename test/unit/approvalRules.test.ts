import { describe, expect, it } from "vitest";
import { commandVerdict, pathVerdict } from "../../src/agent/safety/approvalRules.js";
import { parseScript } from "../../src/agent/safety/shellParser.js";
import { Config, type ApprovalRule } from "../../src/config/schema.js";

const WORKSPACE = "/tmp/aas-rules-ws";
const bash = (script: string) => ["/bin/bash", "-lc", script];
/** The rules' verdict on a script: its action, with `?` when the rule only may apply (what runs cannot be known). */
const verdict = async (rules: ApprovalRule[], script: string) => {
  const found = commandVerdict(rules, { argv: bash(script), parsed: await parseScript(script), cwd: WORKSPACE, modelWritable: [WORKSPACE] });
  return found === null ? null : `${found.action}${found.unknown === null ? "" : "?"}`;
};
const denyPush: ApprovalRule[] = [{ action: "deny", command: ["git", "push"] }];

describe("approval rules", () => {
  it("matches argv prefixes per simple command: deny anywhere refuses, allow needs every part", async () => {
    const rules: ApprovalRule[] = [
      { action: "deny", command: ["git", "push"] },
      { action: "allow", command: ["npm", "test"] },
      { action: "ask", command: ["rm"] },
    ];
    expect(await verdict(rules, "git push origin main")).toBe("deny");
    expect(await verdict(rules, "npm test && git push")).toBe("deny");
    expect(await verdict(rules, "npm test -- --run")).toBe("allow");
    expect(await verdict(rules, "npm test && npm test")).toBe("allow");
    expect(await verdict(rules, "npm test && ls")).toBeNull();
    expect(await verdict(rules, "npm test; rm -rf build")).toBe("ask");
    expect(await verdict(rules, "gitpush")).toBeNull();
  });

  it("takes the first matching rule, and anchors regexes", async () => {
    const rules: ApprovalRule[] = [
      { action: "allow", command_regex: "cargo (build|test)( .*)?" },
      { action: "deny", command: ["cargo"] },
    ];
    expect(await verdict(rules, "cargo test --all")).toBe("allow");
    expect(await verdict(rules, "cargo publish")).toBe("deny");
    expect(await verdict(rules, "xcargo test")).toBeNull();
  });

  it("sees through quoting: a deny matches the words bash runs, wherever the command is", async () => {
    for (const script of [
      "git push 'origin;main'",
      'git push "origin&&main"',
      "g'it' pu\"sh\"",
      "gi\\t push",
      "ls\ngit push",
      "echo $(git push)",
      "echo `git push`",
      "cat <(git push)",
      "(git push)",
      "{ git push; }",
      "if true; then git push; fi",
      "git push &",
      "FOO=1 git push",
      "env A=1 git push",
      "sudo -u me git push",
      "timeout 5 git push",
      "xargs -n1 git push < list",
      "bash -c 'git push'",
      "env bash -c 'git push'",
      "sudo -u me /bin/sh -c 'git push'",
      "sh -c \"bash -lc 'git push'\"",
      "eval git push",
      "git -C . push",
      "git --git-dir=x push",
      "/usr/bin/git push",
      "coproc git push",
      "find . -exec git push ;",
      "find . -name x -execdir /usr/bin/git push +",
      "git pu\\\nsh",
      "trap 'git push' EXIT",
      "cat <<EOF\n$(git push)\nEOF",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny");
    }
    expect(await verdict(denyPush, "git pull 'push'")).toBeNull();
    expect(await verdict(denyPush, "git -C push pull")).toBeNull();
    expect(await verdict(denyPush, "find . -name push")).toBeNull();
    expect(await verdict(denyPush, "echo 'git push'")).toBeNull();
  });

  it("sees through every wrapper by its own option grammar", async () => {
    for (const script of [
      "exec -a NAME git push",
      "env -u VAR git push",
      "env --unset=VAR git push",
      "env -C dir git push",
      "env -S 'git push'",
      "env --split-string='git push'",
      "env -S'-u X git' push",
      "stdbuf -o L git push",
      "stdbuf --output=L git push",
      "nice --adjustment 5 git push",
      "nice --adjustment=5 git push",
      "nice -n 5 git push",
      "nice -5 git push",
      "flock FILE git push",
      "flock -c 'git push' FILE",
      "flock FILE -c 'git push'",
      "ionice -c 2 -n 7 git push",
      "chroot / git push",
      "chroot --userspec=a:b / git push",
      "script -c 'git push'",
      "script --command 'git push' out",
      "timeout -s KILL 5 git push",
      "setsid -w git push",
      "sudo -u x git push",
      "sudo -E -u x HOME=/x git push",
      "doas -u x git push",
      "command -p git push",
      "builtin exec git push",
      "time -p git push",
      "taskset -c 0 git push",
      "taskset 0x1 git push",
      "chrt -f 1 git push",
      "prlimit --nofile=10 git push",
      "setpriv --reuid=1 git push",
      "unshare -r git push",
      "watch 'git push'",
      "watch -n 1 git push",
      "su -c 'git push'",
      "su user -c 'git push'",
      "runuser -u x -- git push",
      "strace -f git push",
      "strace -o '|git push' ls",
      "ltrace git push",
      "valgrind --tool=memcheck git push",
      "faketime x git push",
      "fakeroot git push",
      "unbuffer git push",
      "systemd-run --user git push",
      "busybox git push",
      "busybox sh -c 'git push'",
      "nohup nice -n 1 env A=1 timeout 5 git push",
      "bash -c -e 'git push'",
      "trap -- 'git push' EXIT",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny");
    }
    for (const script of ["env -u push git pull", "timeout 5 git pull", "nice -n push git pull", "flock push git pull", "sudo -u push git pull", "taskset 1 git pull"]) {
      expect(await verdict(denyPush, script), script).toBeNull();
    }
  });

  it("reads the command lines in variables that programs run, however they are set", async () => {
    for (const script of [
      "GIT_SSH_COMMAND='git push' git fetch",
      "env GIT_SSH_COMMAND='git push' git fetch",
      "export GIT_SSH_COMMAND='git push'; git fetch",
      "declare -x GIT_EDITOR='git push'; git commit",
      "local EDITOR='git push'",
      "PAGER='git push' git log",
      "sudo GIT_PAGER='git push' git log",
      "strace -E 'GIT_SSH=git push' git fetch",
      "PROMPT_COMMAND='git push' bash -i",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny");
    }
    // A program adds its own words to the command line, so the value's program is followed by unknown words.
    expect(await verdict(denyPush, "GIT_SSH=git git fetch push:repo")).toBe("deny?");
    expect(await verdict(denyPush, 'GIT_SSH_COMMAND="$X" git fetch')).toBe("deny?");
    expect(await verdict(denyPush, "EDITOR=vim git commit")).toBeNull();
  });

  it("asks, under deny rules, for what it cannot know: an option no grammar knows, an alias, a script from a file…", async () => {
    for (const script of [
      "sudo --bogus git push",
      "nice --adj 5 git push",
      "timeout --kill=1 5 git push",
      "env -i git pull",
      "env -S 'git\\_push'",
      "echo push | xargs git",
      "xargs -I{} git {}",
      "xargs -I % git %",
      "git -c alias.x=push x",
      "git -c core.pager=less log",
      "git x",
      "git $SUB origin",
      "git pu{sh,} origin",
      "git -C $X",
      "git rebase -x 'git push' main",
      "git rebase --exe='git push' main",
      "git bisect run make",
      "git submodule foreach git pull",
      "git clone -u 'git push' url",
      "git fetch --upload-pack='git push' origin",
      "fc -s",
      "compgen -C 'git push' x",
      "complete -C 'git push' x",
      "bind -x '\"\\C-x\": git push'",
      "mapfile -C 'git push' -c 1 < f",
      "sudo -u $U push",
      "find . -exec git {} ;",
      "bash -c \"$CMD\"",
      "\"$SHELL\" -c 'git push'",
      "$GIT push",
      "alias g=git\ng push",
      "bash",
      "bash -s",
      "cat x | sh",
      "sh <<< 'git push'",
      "bash < f",
      "bash script.sh",
      "sh ./x",
      "bash <(echo)",
      "bash --rcfile x -i",
      "fish -c 'git push'",
      "source f",
      ". f",
      "BASH_ENV=x ls",
      "env ENV=x sh -c ls",
      "export BASH_ENV=x",
      "export -f f",
      "declare -fx f",
      "env 'BASH_FUNC_ls%%=() { git push; }' bash -c ls",
      "eval \"$X\"",
      "enable -f x.so y",
      "hash -p /tmp/x ls",
      "PATH=/tmp ls",
      "export PATH=$PATH:.",
      "unset PATH; ls",
      "for PATH in . ; do ls; done",
      "read PATH",
      "printf -v PATH .",
      "exec {PATH}>/dev/null",
      "echo ${PATH:=.}",
      "((PATH=1))",
      "LD_PRELOAD=x.so ls",
      "GIT_CONFIG_COUNT=1 git status",
      "GIT_EXEC_PATH=/tmp git status",
      "PS4='$(git push)' bash -xc ls",
      "./deploy.sh",
      `${WORKSPACE}/deploy.sh`,
      "/tmp/aas-rules-ws/sub/../x",
      "cd /usr/bin && ./git push",
      "env -C /usr/bin ./git push",
      "find . -execdir ./x ;",
      "chroot /srv git pull",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny?");
    }
    // Where bash evaluates a value as arithmetic or as a variable's name, an array subscript's
    // `$(…)` runs even if it was quoted when written (each of these ran `git push` unasked).
    for (const script of [
      "let 'x[$(git push)]'",
      "test -v 'x[$(git push)]'",
      "[ -v 'x[$(git push)]' ]",
      "[[ -v x ]]",
      "[[ $x -eq 1 ]]",
      "declare 'x[$(git push)]=1'",
      'declare "$v=1"',
      "typeset -i n; n='a[$(git push)]'",
      "read 'a[$(git push)]' <<< q",
      'read "$v" <<< q',
      "printf -v 'a[$(git push)]' x",
      "mapfile 'a[$(git push)]' < /dev/null",
      "echo $(( 'a[$(git push)]' ))",
      "((x))",
      "for ((i=x; 0; )); do :; done",
      "a[x]=1",
      "echo ${a[x]}",
      "echo ${!x}",
      "echo ${s:x}",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny?");
    }
    // Where bash reads the script differently from the parser, or startup files come from elsewhere.
    for (const script of [
      "coproc X { git push; }",
      "coproc { git push; }",
      "coproc X while git push; do :; done",
      "time { git push; }",
      "x='$(git push)'; echo \"${x@P}\"",
      "set -k; ls PATH=.",
      "set -o keyword; ls PATH=.",
      "set -o history -H",
      "set $OPTS",
      "shopt -s expand_aliases",
      "HOME=. bash -lc true",
      "env HOME=. bash -ic true",
      "ZDOTDIR=. zsh -ic true",
      "GIT_DIR=./fake git status",
      "SHELLOPTS=xtrace bash -c true",
    ]) {
      expect(await verdict(denyPush, script), script).toBe("deny?");
    }
    for (const script of ["export FOO=bar", "read -r line", "echo ${x:-default}", "[[ $a == b ]]", "declare -a list", "set -euo pipefail", "time ls", "shopt -s nullglob"]) {
      expect(await verdict(denyPush, script), script).toBeNull();
    }
    // Nothing unknown, no rule: no verdict; allow rules never allow what cannot be known.
    expect(await verdict([], "./deploy.sh")).toBeNull();
    expect(await verdict([{ action: "allow", command: ["./deploy.sh"] }], "./deploy.sh")).toBeNull();
    expect(await verdict([{ action: "ask", command: ["rm"] }], "bash x.sh")).toBe("ask?");
    expect(await verdict([{ action: "ask", command: ["rm"] }, { action: "deny", command: ["git", "push"] }], "bash x.sh")).toBe("deny?");
    // A deny on known words refuses even where something else is unknown.
    expect(await verdict(denyPush, "bash x.sh; git push")).toBe("deny");
    expect(await verdict(denyPush, "env -i git push")).toBe("deny");
    // Relative programs outside what the model can write, with no change of directory, are known.
    expect(commandVerdict(denyPush, { argv: bash("../bin/tool"), parsed: await parseScript("../bin/tool"), cwd: "/usr/share", modelWritable: [WORKSPACE] })).toBeNull();
  });

  it("allows by rule only a plain script: no substitution, redirection, background job or nesting", async () => {
    const rules: ApprovalRule[] = [{ action: "allow", command_regex: "cargo (build|test)( .*)?" }];
    expect(await verdict(rules, "cargo test --all && cargo build")).toBe("allow");
    for (const script of [
      "cargo test $(touch x)",
      "cargo test `touch x`",
      "cargo test & touch x",
      "cargo test > x",
      "cargo test < x",
      "cargo test <(touch x)",
      "cargo test\ntouch x",
      "cargo test; touch x",
      "X=1 cargo test",
      "cargo test $HOME",
      "cargo test *",
      "bash -c 'cargo test'",
      "cargo test <<EOF\nx\nEOF",
    ]) {
      expect(await verdict(rules, script), script).not.toBe("allow");
    }
  });

  it("matches a whole-argv prefix learned for a compound script, only for that script", async () => {
    const script = "echo ok && touch done.txt";
    const learned: ApprovalRule[] = [{ action: "allow", command: bash(script) }];
    expect(await verdict(learned, script)).toBe("allow");
    expect(await verdict(learned, "echo ok && touch other.txt")).toBeNull();
  });

  it("matches patch paths with real globs relative to the cwd: **, braces, classes, dotfiles", () => {
    const rules: ApprovalRule[] = [
      { action: "deny", path: "**/.env" },
      { action: "deny", path: "**/*.{pem,key}" },
      { action: "ask", path: "config/[ab].toml" },
      { action: "allow", path: "src/**/*.ts" },
      { action: "ask", path: "package.json" },
    ];
    expect(pathVerdict(rules, ["src/a/b.ts", "src/c.ts"])?.action).toBe("allow");
    expect(pathVerdict(rules, ["src/a.ts", "config/.env"])?.action).toBe("deny");
    expect(pathVerdict(rules, [".env"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["certs/server.pem"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["id.key"])?.action).toBe("deny");
    expect(pathVerdict(rules, ["config/a.toml"])?.action).toBe("ask");
    expect(pathVerdict(rules, ["config/c.toml"])).toBeNull();
    expect(pathVerdict(rules, ["config/ab.toml"])).toBeNull();
    expect(pathVerdict(rules, ["src/a.ts", "package.json"])?.action).toBe("ask");
    expect(pathVerdict(rules, ["src/a.js"])).toBeNull();
  });

  it("rejects rules with no matcher, two matchers or a bad regex, naming the entry", () => {
    const problems = (rules: unknown[]) => Config.safeParse({ approval_rules: rules }).error?.issues.map((issue) => issue.path.join(".")) ?? [];
    expect(problems([{ action: "allow" }])).toEqual(["approval_rules.0"]);
    expect(problems([{ action: "allow", command: ["ls"] }, { action: "deny", command: ["x"], path: "y" }])).toEqual(["approval_rules.1"]);
    expect(problems([{ action: "ask", command_regex: "(" }])).toEqual(["approval_rules.0.command_regex"]);
    expect(problems([{ action: "maybe", command: ["ls"] }])).toEqual(["approval_rules.0.action"]);
  });
});
