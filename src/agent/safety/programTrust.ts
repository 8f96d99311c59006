import { realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../../workspace/roots.js";
import { isShellName } from "./shells.js";

/** Where a command's programs are looked up and what the model could have put there. */
export interface ProgramContext {
  /** Where relative program paths resolve (the command's working directory). */
  readonly cwd: string;
  /** Absolute directories the model can write. */
  readonly modelWritable: readonly string[];
}

/**
 * Whether `searchPath` (a PATH) finds only programs the model cannot have written: every entry
 * absolute (an empty or relative entry searches the working directory) and outside the
 * directories the model can write, symlinks resolved. An unknown PATH (null) is not clean.
 */
export function cleanSearchPath(searchPath: string | null, modelWritable: readonly string[]): boolean {
  if (searchPath === null) return false;
  return searchPath.split(":").every((entry) => path.isAbsolute(entry) && !insideAny(entry, modelWritable));
}

/**
 * Why what a program named by a path runs cannot be known, or null: a path inside a directory
 * the model can write is a script it may have written (`./deploy.sh`); a relative path is
 * resolved against `cwd`, unless the script changes directory first (`movesDirectory`). A bare
 * name is looked up on PATH and is not judged here.
 */
export function programProblem(program: string, context: ProgramContext, movesDirectory: boolean): string | null {
  if (!program.includes("/")) return null;
  if (!path.isAbsolute(program) && movesDirectory) return `it runs ${program}, a relative path, in a directory that changes`;
  const resolved = path.resolve(context.cwd, program);
  return insideAny(resolved, context.modelWritable) ? `it runs ${program}, which the model can write` : null;
}

/**
 * Why the tool's argv runs something other than the script that was checked, or null: its
 * program is one the model can write, or it runs a shell otherwise than as `SHELL -c SCRIPT`
 * (`bash --norc ls` runs the file `ls`, not the command).
 */
export function argvProblem(argv: readonly string[], context: ProgramContext): string | null {
  const program = argv[0];
  if (program === undefined) return "the command is empty";
  const problem = programProblem(program, context, false);
  if (problem) return problem;
  if (!isShellName(path.basename(program))) return null;
  return argv.length === 3 && ["-c", "-lc", "-cl"].includes(argv[1]!) ? null : `it runs ${program} with options other than -c`;
}

/** Whether `file` is inside one of `roots`, as written or with symlinks resolved (a file not made yet: its nearest existing ancestor). */
function insideAny(file: string, roots: readonly string[]): boolean {
  const candidates = [path.resolve(file), physical(file)];
  return roots.some((root) => [path.resolve(root), physical(root)].some((top) => candidates.some((candidate) => isInside(candidate, top))));
}

/** `file` with symlinks resolved, as far as it exists. */
function physical(file: string): string {
  const absolute = path.resolve(file);
  const rest: string[] = [];
  for (let current = absolute; ; current = path.dirname(current)) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      if (current === path.dirname(current)) return absolute;
      rest.push(path.basename(current));
    }
  }
}
