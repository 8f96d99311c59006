import { randomBytes } from "node:crypto";

/** Rough token count of text (4 characters a token), as used for output budgets. */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Keeps the head and tail of text over `maxTokens`, with a marker saying how much was cut. */
export function truncateForModel(text: string, maxTokens: number): string {
  const limit = Math.max(0, maxTokens) * 4;
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  const cut = approximateTokens(text) - maxTokens;
  return `${text.slice(0, half)}\n…${cut} tokens truncated…\n${text.slice(text.length - half)}`;
}

/** What the model is told about a command, in Codex's unified-exec form. */
export function execOutputText(options: {
  readonly wallMs: number;
  readonly exitCode: number | null;
  readonly sessionId: number | null;
  readonly output: string;
  readonly maxTokens: number;
}): string {
  const status =
    options.exitCode === null ? `Process running with session ID ${options.sessionId}` : `Process exited with code ${options.exitCode}`;
  return [
    `Chunk ID: ${randomBytes(3).toString("hex")}`,
    `Wall time: ${(options.wallMs / 1000).toFixed(4)} seconds`,
    status,
    `Original token count: ${approximateTokens(options.output)}`,
    "Output:",
    truncateForModel(options.output, options.maxTokens),
  ].join("\n");
}

/** What the model is told about a command run through the older `shell` / `shell_command` tools. */
export function shellOutputText(options: { readonly wallMs: number; readonly exitCode: number; readonly output: string; readonly maxTokens: number }): string {
  return [
    `Exit code: ${options.exitCode}`,
    `Wall time: ${(options.wallMs / 1000).toFixed(1)} seconds`,
    "Output:",
    truncateForModel(options.output, options.maxTokens),
  ].join("\n");
}
