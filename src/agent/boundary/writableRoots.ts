import path from "node:path";
import type { SandboxPolicy } from "../../protocol/policy.js";
import { isInside, type WritableRoots } from "../../workspace/roots.js";
import { protectedPaths } from "./protectedPaths.js";

/** Paths of the server's that stay read-only wherever they are, besides its home. */
export interface ServerPaths {
  /** Files of the server's (listener sockets, token files, the audit log), also masked in the sandbox. */
  readonly hidden?: readonly string[];
  /** Programs and scripts the server itself runs outside the sandbox (MCP servers'). */
  readonly executed?: readonly string[];
}

/**
 * The writable roots of a policy: none for read-only, everything (null) for full access; for
 * workspace-write the cwd, the temp dirs (unless excluded) and configured roots. Inside them stay
 * read-only: the protected paths (`.git`, `.agents`, `.codex` and what git runs, see
 * boundary/protectedPaths.ts), the server's home, and the server's other paths.
 */
export function writableRoots(
  policy: SandboxPolicy,
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  server: ServerPaths = {},
): WritableRoots | null {
  if (policy.type === "dangerFullAccess" || policy.type === "externalSandbox") return null;
  if (policy.type === "readOnly") return { roots: [], protectedPaths: [] };
  const roots = [cwd, ...(policy.writableRoots ?? [])];
  if (!policy.excludeSlashTmp) roots.push("/tmp");
  if (!policy.excludeTmpdirEnvVar && env.TMPDIR) roots.push(env.TMPDIR);
  const unique = [...new Set(roots.map((root) => path.resolve(root)))];
  const serverOwn = [home, ...(server.hidden ?? []), ...(server.executed ?? [])]
    .map((entry) => path.resolve(entry))
    .filter((entry) => unique.some((root) => isInside(entry, root)));
  return { roots: unique, protectedPaths: [...protectedPaths(unique, env), ...serverOwn] };
}

/** Whether the policy lets commands reach the network. */
export function networkAllowed(policy: SandboxPolicy): boolean {
  if (policy.type === "dangerFullAccess") return true;
  if (policy.type === "externalSandbox") return policy.networkAccess === "enabled";
  return policy.networkAccess ?? false;
}
