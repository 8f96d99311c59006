import type { AppServerClient } from "../client/index.js";
import type { AvailableCommand, ContentBlock } from "../vendor/acp.js";

/** A command an editor offers after `/`: how it starts its turn (returning the turn's id when known). */
interface SlashCommand extends AvailableCommand {
  readonly start: (server: AppServerClient, threadId: string, argument: string) => Promise<string | undefined>;
}

const COMMANDS: readonly SlashCommand[] = [
  {
    name: "review",
    description: "Review the uncommitted changes, or what the instructions after it ask for",
    input: { hint: "optional review instructions" },
    start: async (server, threadId, argument) => {
      const target = argument ? { type: "custom" as const, instructions: argument } : { type: "uncommittedChanges" as const };
      return (await server.request("review/start", { threadId, target, delivery: "inline" })).turn.id;
    },
  },
  {
    name: "compact",
    description: "Summarize the conversation so far, to free the model's context",
    input: null,
    start: async (server, threadId) => {
      await server.request("thread/compact/start", { threadId });
      return undefined;
    },
  },
];

/** The commands as `available_commands_update` announces them. */
export function availableCommands(): AvailableCommand[] {
  return COMMANDS.map(({ name, description, input }) => ({ name, description, input }));
}

/** The command a prompt is (`/review look at the tests`), with the text after its name; undefined for a plain prompt. */
export function slashCommand(blocks: readonly ContentBlock[]): { start: SlashCommand["start"]; argument: string } | undefined {
  const first = blocks[0];
  if (blocks.length !== 1 || first?.type !== "text") return undefined;
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(first.text.trim());
  const command = match && COMMANDS.find((entry) => entry.name === match[1]);
  return command ? { start: command.start, argument: match[2]!.trim() } : undefined;
}
