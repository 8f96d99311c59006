import { runs, unknown, type Analysis, type Run } from "./runs.js";
import type { ShellWord } from "./shellTypes.js";

/**
 * git's own commands (`git --list-cmds=builtins,main` of git 2.39). git never lets an alias
 * shadow one of these, so `git push` is always git's push; any other subcommand may be an alias
 * from a config file the repository or the model wrote, which can run anything (`!sh -c …`).
 */
const GIT_COMMANDS = new Set(
  (
    "add add--interactive am annotate apply archive bisect bisect--helper blame branch bugreport bundle cat-file check-attr check-ignore " +
    "check-mailmap check-ref-format checkout checkout--worker checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree " +
    "config count-objects credential credential-cache credential-cache--daemon credential-store daemon describe diagnose diff diff-files " +
    "diff-index diff-tree difftool difftool--helper env--helper fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref " +
    "for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep hash-object help hook http-backend http-fetch " +
    "http-push imap-send index-pack init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge " +
    "merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs " +
    "merge-resolve merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs " +
    "patch-id pickaxe prune prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd " +
    "remote-ftp remote-ftps remote-http remote-https repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-pack " +
    "sh-i18n--envsubst shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule " +
    "submodule--helper subtree switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive " +
    "upload-archive--writer upload-pack var verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree"
  ).split(" "),
);

// git's options before the subcommand: those taking the next word as their value, and flags.
const GLOBAL_VALUES = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds", "--attr-source"]);
const GLOBAL_FLAGS = new Set([
  "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--bare", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
  "--icase-pathspecs", "--no-optional-locks", "--html-path", "--man-path", "--info-path", "-h", "--help", "-v", "--version",
]);

/**
 * Subcommands that run a command given in their words: always, with one of these short options
 * (bundled or not), long options (abbreviated too, as git accepts), or words.
 */
const RUNS_COMMANDS: Readonly<Record<string, { readonly short?: string; readonly long?: readonly string[]; readonly words?: readonly string[] } | "always">> = {
  rebase: { short: "x", long: ["exec"] },
  difftool: { short: "x", long: ["extcmd"] },
  grep: { short: "O", long: ["open-files-in-pager"] },
  // A template directory's hooks, or a core.hooksPath set with -c, run at checkout.
  clone: { short: "uc", long: ["upload-pack", "template", "config"] },
  fetch: { long: ["upload-pack"] },
  pull: { long: ["upload-pack"] },
  "fetch-pack": { long: ["upload-pack", "exec"] },
  "ls-remote": { long: ["upload-pack", "exec"] },
  push: { long: ["receive-pack", "exec"] },
  "send-pack": { long: ["receive-pack", "exec"] },
  archive: { long: ["exec"] },
  bisect: { words: ["run"] },
  submodule: { words: ["foreach"] },
  "filter-branch": "always",
  "for-each-repo": "always",
  hook: "always",
  instaweb: "always",
  "remote-ext": "always",
  "web--browse": "always",
};

/**
 * What `git ARGS` runs: git's own subcommand, also named without the global options (`git -C
 * dir push` is `git push`). Unknown: a subcommand that is not one of git's (an alias or a
 * `git-NAME` program), any `-c`/`--config-env` (config can define what git runs), `--exec-path`,
 * and a subcommand that runs a command from its words (`rebase -x`, `bisect run`).
 */
export function gitRuns(args: readonly ShellWord[]): Analysis | null {
  let configured = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!word.literal) return unknown(`git's subcommand may be ${word.text}`);
    const name = word.text.split("=")[0]!;
    if (!word.text.startsWith("-")) break;
    if (name === "-c" || name === "--config-env") configured = true;
    if (name === "--exec-path") return unknown("git --exec-path runs git's commands from another directory");
    if (GLOBAL_VALUES.has(word.text)) {
      if (args[i + 1]?.splits) return unknown(`the value of git ${word.text} may be several words`);
      i++;
    } else if (!GLOBAL_FLAGS.has(word.text) && !(GLOBAL_VALUES.has(name) && name.startsWith("--"))) return unknown(`git ${word.text} is not an option it is known to take`);
  }
  const subcommand = args[i];
  if (subcommand === undefined) return null;
  if (!GIT_COMMANDS.has(subcommand.text)) return unknown(`git ${subcommand.text} is not one of git's commands, so it may be an alias`);
  if (configured) return unknown("git -c can configure what git runs");
  const found: Run[] = [];
  if (i > 0) found.push({ kind: "same", words: [{ text: "git", literal: true, splits: false }, ...args.slice(i)] });
  const runsCommand = commandFromWords(subcommand.text, args.slice(i + 1));
  if (runsCommand) found.push({ kind: "unknown", reason: runsCommand });
  return runs(...found);
}

/** Why a git subcommand runs a command given in its words, or null. */
function commandFromWords(subcommand: string, args: readonly ShellWord[]): string | null {
  const spec = RUNS_COMMANDS[subcommand];
  if (!spec) return null;
  const why = `git ${subcommand} can run a command given in its words`;
  if (spec === "always" || args.some((word) => word.splits)) return why;
  const hit = args.some(({ text }) => {
    if (spec.words?.includes(text)) return true;
    if (text.startsWith("--")) {
      const name = text.slice(2).split("=")[0]!;
      return name.length > 0 && (spec.long ?? []).some((option) => option.startsWith(name));
    }
    return text.startsWith("-") && [...(spec.short ?? "")].some((letter) => text.slice(1).includes(letter));
  });
  return hit ? why : null;
}
