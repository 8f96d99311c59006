import { execFileSync } from "node:child_process";
import { appendFileSync } from "node:fs";

/**
 * Records that tests were skipped because `program` is missing: the suite prints one line about
 * all of them at the end (skipSummary.ts). `install` says how to get it (a Debian/Ubuntu command).
 */
export function missingProgram(program: string, what: string, install: string): void {
  const file = process.env.AAS_SKIPS_FILE;
  if (file) appendFileSync(file, `${program}\t${install}\t${what}\n`);
  else process.stderr.write(`\n!!! ${program} is missing: ${what} is SKIPPED (install: ${install}). !!!\n\n`);
}

/** Whether `argv` runs and succeeds here: a program a test needs. When it does not, the skip is recorded (see {@link missingProgram}). */
export function programWorks(argv: readonly string[], what: string, install: string): boolean {
  try {
    execFileSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
    return true;
  } catch {
    missingProgram(argv[0]!, what, install);
    return false;
  }
}
