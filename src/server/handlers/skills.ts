import { discoverSkills } from "../../agent/index.js";
import type { ConfigStore } from "../../config/configStore.js";
import { invalidRequest } from "../../protocol/errors.js";
import type { HandlerTable } from "../dispatcher.js";

/** What the skills methods read and change: the config, the home, and the extra roots set while running. */
export interface SkillsDeps {
  readonly store: ConfigStore;
  readonly home: string;
  /** The directory `skills/list` looks from when a request names no cwd. */
  readonly defaultCwd: string;
  readonly extraRoots: { current: readonly string[] };
}

/** `skills/list`, `skills/config/write` (on or off in config.toml's `[[skills.config]]`) and `skills/extraRoots/set`. */
export function skillsHandlers(deps: SkillsDeps): Pick<HandlerTable, "skills/list" | "skills/config/write" | "skills/extraRoots/set"> {
  const sources = () => ({
    home: deps.home,
    extraRoots: deps.extraRoots.current,
    disabled: deps.store.current.skills?.config?.filter((entry) => !entry.enabled) ?? [],
  });
  return {
    "skills/list": async (params) => {
      const cwds = params.cwds && params.cwds.length > 0 ? params.cwds : [deps.defaultCwd];
      return { data: await Promise.all(cwds.map(async (cwd) => ({ cwd, ...(await discoverSkills(cwd, sources())) }))) };
    },
    "skills/config/write": async (params) => {
      if (!params.path && !params.name) throw invalidRequest("skills/config/write needs the skill's path or name");
      const selector = params.path ? { path: params.path } : { name: params.name! };
      const others = (deps.store.current.skills?.config ?? []).filter((entry) => (params.path ? entry.path !== params.path : entry.name !== params.name));
      // On is the default: an entry is kept only to switch a skill off, and no entry left clears the key.
      const config = params.enabled ? others : [...others, { ...selector, enabled: false }];
      try {
        await deps.store.write([{ keyPath: "skills.config", value: config.length > 0 ? config : null, mergeStrategy: "replace" }], null);
      } catch (error) {
        throw invalidRequest(`skills/config/write failed: ${(error as Error).message}`);
      }
      return { effectiveEnabled: params.enabled };
    },
    "skills/extraRoots/set": (params) => {
      if (params.extraRoots.some((root) => !root.startsWith("/"))) throw invalidRequest("skills/extraRoots/set needs absolute paths");
      deps.extraRoots.current = [...params.extraRoots];
      return {};
    },
  };
}
