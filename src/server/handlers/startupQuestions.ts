import type { HandlerTable } from "../dispatcher.js";

type StartupQuestionHandlers = Pick<
  HandlerTable,
  | "hooks/list"
  | "plugin/installed"
  | "collaborationMode/list"
>;

/**
 * What a client asks about its extensions when it starts. This server has no hooks or plugins, and one
 * collaboration mode, so each answer is the true, empty one: clients such as the Codex TUI wait
 * for these before they show their composer.
 */
export function startupQuestionHandlers(): StartupQuestionHandlers {
  return {
    "hooks/list": (params) => ({ data: (params.cwds ?? []).map((cwd) => ({ cwd, hooks: [], errors: [], warnings: [] })) }),
    "plugin/installed": () => ({ marketplaces: [], marketplaceLoadErrors: [] }),
    "collaborationMode/list": () => ({ data: [{ name: "Default", mode: "default", model: null, reasoning_effort: null }] }),
  };
}
