import type { Config } from "../../config/schema.js";

type Policy = NonNullable<Config["shell_environment_policy"]>;

// Codex's `shell_environment_policy` defaults drop `*KEY*`, `*SECRET*` and `*TOKEN*`; passwords,
// credentials and personal access tokens (`GH_PAT`) are secrets as much. `*KEY*` covers `*PRIVATE_KEY*`.
const DEFAULT_EXCLUDES = ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*_PAT"];
const CORE = new Set(["HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL", "TERM"]);

function matcher(patterns: readonly string[]): (name: string) => boolean {
  const regexes = patterns.map(
    (pattern) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "i"),
  );
  return (name) => regexes.some((regex) => regex.test(name));
}

/** Whether a variable's name marks it a secret: the default excludes (`*KEY*`, `*PASSWORD*`, `*_PAT`, …), case-insensitive. */
export const isSecretEnvName = matcher(DEFAULT_EXCLUDES);

/**
 * The environment a command gets, as Codex's `shell_environment_policy`: start from all, core or
 * no variables (`inherit`), drop secrets ({@link isSecretEnvName}) unless `ignore_default_excludes`,
 * drop `exclude` patterns, keep only `include_only` patterns, add `set`.
 */
export function childEnvironment(policy: Policy | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  const inherit = policy?.inherit ?? "all";
  const excluded = matcher([...(policy?.ignore_default_excludes ? [] : DEFAULT_EXCLUDES), ...(policy?.exclude ?? [])]);
  const included = policy?.include_only?.length ? matcher(policy.include_only) : () => true;
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || inherit === "none" || (inherit === "core" && !CORE.has(name))) continue;
    if (excluded(name) || !included(name)) continue;
    result[name] = value;
  }
  return { ...result, ...policy?.set };
}
