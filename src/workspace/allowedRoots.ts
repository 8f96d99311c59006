import path from "node:path";
import type { Config } from "../config/schema.js";
import { invalidRequest, type RpcError } from "../protocol/errors.js";
import { ConfinedFs, type ConfinedFsError } from "./confinedFs.js";

/**
 * The directories client file requests (`fs/*`, `fuzzyFileSearch`) may reach, fixed by whoever
 * runs the server: a client cannot widen them (a thread's cwd does not add to them). Files are
 * reached through a {@link ConfinedFs} over them, so a path is inside when its real location is.
 */
export class AllowedRoots {
  private files: Promise<ConfinedFs> | undefined;
  /** The roots, absolute and without repeats. */
  readonly roots: readonly string[];

  constructor(roots: Iterable<string>) {
    this.roots = [...new Set([...roots].map((root) => path.resolve(root)))];
  }

  /**
   * The confined filesystem over the roots. Their real locations are resolved at the first
   * request and kept: a root later swapped for a symlink does not take requests with it.
   */
  confined(): Promise<ConfinedFs> {
    this.files ??= ConfinedFs.create({ roots: this.roots, protectedPaths: [] });
    return this.files;
  }
}

/** -32600 for a path a client asked for that lies outside the roots, naming it, where it resolves to and the rule. */
export function outsideRoots(error: ConfinedFsError): RpcError {
  const roots = error.roots ?? [];
  const resolves = error.location === undefined || error.location === path.resolve(error.path) ? "" : ` (it resolves to ${error.location})`;
  return invalidRequest(
    `${error.path} is outside the allowed roots${resolves}. File requests may reach the server's working directory, ` +
      `[sandbox_workspace_write] writable_roots and the projects its config trusts (trust_level = "trusted"); ` +
      `a thread's cwd does not add to them: ${roots.join(", ")}`,
    { path: error.path, allowedRoots: roots },
  );
}

/**
 * The allowed roots of a server under its current config: its working directory,
 * `[sandbox_workspace_write] writable_roots` (relative entries from the working directory) and
 * each `[projects."<abs path>"]` with `trust_level = "trusted"`. Read at each request, so a config
 * write reaches file requests at once; the roots are rebuilt only when the config changed.
 */
export function serverRoots(serverCwd: string, config: () => Config): () => AllowedRoots {
  let built: { config: Config; roots: AllowedRoots } | undefined;
  return () => {
    const current = config();
    if (built?.config !== current) built = { config: current, roots: rootsUnder(serverCwd, current) };
    return built.roots;
  };
}

function rootsUnder(serverCwd: string, config: Config): AllowedRoots {
  const configured = (config.sandbox_workspace_write?.writable_roots ?? []).map((root) => path.resolve(serverCwd, root));
  const trusted = Object.entries(config.projects ?? {})
    .filter(([project, settings]) => path.isAbsolute(project) && settings.trust_level === "trusted")
    .map(([project]) => project);
  return new AllowedRoots([serverCwd, ...configured, ...trusted]);
}
