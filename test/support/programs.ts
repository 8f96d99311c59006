import { execFileSync } from "node:child_process";

/**
 * Whether `argv` runs and succeeds here: a program a test needs (strace, python3, a C compiler).
 * When it does not, says loudly on stderr that `what` is SKIPPED.
 */
export function programWorks(argv: readonly string[], what: string): boolean {
  try {
    execFileSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
    return true;
  } catch {
    process.stderr.write(`\n!!! ${argv[0]} does not run here: ${what} is SKIPPED. !!!\n\n`);
    return false;
  }
}
