/** Where writes may go, and the one test of whether a path is inside a root. */
import path from "node:path";

/** Where a turn may write: the roots, and what stays read-only inside them. */
export interface WritableRoots {
  readonly roots: readonly string[];
  readonly protectedPaths: readonly string[];
  /** Paths neither read nor written (the server's own, which no sandbox shows). */
  readonly hiddenPaths?: readonly string[];
  /**
   * Files are used only as the sandbox's processes may use them: by their modes, for this uid and
   * its groups without any capability. Set where the server acts for a sandboxed model.
   */
  readonly asSandbox?: boolean;
}

/**
 * The trees a sandbox gets fresh ones of (bubblewrap's `--proc` and `--dev`): the server's are not
 * what its commands see (its /proc/self/environ holds the server's keys, its /dev has /dev/shm and
 * devices), so the server's own reads for them skip these.
 */
export const SANDBOX_OWN_TREES: readonly string[] = ["/proc", "/dev"];

/** Whether `target` is `root` or below it (a name that merely starts with `..`, such as `..hooks`, is below it). */
export function isInside(target: string, root: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
