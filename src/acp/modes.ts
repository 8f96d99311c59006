import type { SessionConfigOption, SessionMode } from "../vendor/acp.js";

/** An approval preset: what an editor's mode picker switches between. */
export interface ModePreset extends SessionMode {
  readonly approvalPolicy: "on-request" | "never";
  readonly sandbox: "read-only" | "workspace-write" | "danger-full-access";
}

/** Codex's approval presets, by the ids codex-acp gives them. */
export const MODES: readonly ModePreset[] = [
  {
    id: "read-only",
    name: "Read Only",
    description: "Reads files in the workspace; asks before editing files, running commands that write, or using the network.",
    approvalPolicy: "on-request",
    sandbox: "read-only",
  },
  {
    id: "auto",
    name: "Default",
    description: "Reads and edits files in the workspace and runs commands there; asks before anything outside it or the network.",
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
  },
  {
    id: "full-access",
    name: "Full Access",
    description: "Edits files anywhere and uses the network without asking. Use with care.",
    approvalPolicy: "never",
    sandbox: "danger-full-access",
  },
];

/** The preset a thread's settings are, or `auto` when they are none of them. */
export function modeOf(approvalPolicy: unknown, sandboxType: unknown): ModePreset {
  const sandbox = { readOnly: "read-only", workspaceWrite: "workspace-write", dangerFullAccess: "danger-full-access" }[String(sandboxType)];
  return MODES.find((mode) => mode.approvalPolicy === approvalPolicy && mode.sandbox === sandbox) ?? MODES[1]!;
}

/** The preset of this id, if any. */
export function findMode(id: string): ModePreset | undefined {
  return MODES.find((mode) => mode.id === id);
}

/** The wire shape of the presets: id, name, description. */
export function modeState(current: ModePreset): { currentModeId: string; availableModes: SessionMode[] } {
  return { currentModeId: current.id, availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })) };
}

/** The session's settings as ACP config options: its mode and its model (the models `model/list` names). */
export function configOptions(mode: ModePreset, model: string, models: ReadonlyArray<{ id: string; name: string; description?: string }>): SessionConfigOption[] {
  const known = models.some((entry) => entry.id === model) ? models : [{ id: model, name: model }, ...models];
  return [
    {
      id: "mode",
      name: "Approval Preset",
      category: "mode",
      type: "select",
      currentValue: mode.id,
      options: MODES.map(({ id, name, description }) => ({ value: id, name, description })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: model,
      options: known.map(({ id, name, description }) => ({ value: id, name, ...(description ? { description } : {}) })),
    },
  ];
}
