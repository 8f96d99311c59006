import type {
  DynamicToolCallParams,
  DynamicToolCallResponse,
  ToolRequestUserInputParams,
  ToolRequestUserInputResponse,
} from "../protocol/clientTools.js";

/** Params of a client request, without the thread and turn the turn fills in. */
type ForTurn<P> = Omit<P, "threadId" | "turnId">;

/**
 * Asks the client for something other than an approval. Each resolves to the client's answer, or
 * null when none came: an error answer, no client subscribed, or the turn ended first.
 */
export interface ClientAsker {
  /** Runs a tool the client declared (`item/tool/call`). */
  callTool(params: ForTurn<DynamicToolCallParams>): Promise<DynamicToolCallResponse | null>;
  /** Puts questions to the user (`item/tool/requestUserInput`). */
  askUser(params: ForTurn<ToolRequestUserInputParams>): Promise<ToolRequestUserInputResponse | null>;
}
