import { randomBytes } from "node:crypto";

/** A command's output as kept: its head and tail joined, and how long it really was. */
export interface KeptOutput {
  readonly text: string;
  readonly chars: number;
}

/** Output that was kept whole. */
export function wholeOutput(text: string): KeptOutput {
  return { text, chars: text.length };
}

/**
 * Keeps the head and tail of output over `maxTokens`, with a marker saying how much was cut
 * (counted on what was printed, not on what was kept).
 */
export function truncateForModel(output: KeptOutput, maxTokens: number): string {
  const { text, chars } = output;
  const limit = Math.max(0, maxTokens) * 4;
  if (chars <= limit) return text;
  // Kept output is already head + tail: never take more than half of it from either end.
  const half = Math.min(Math.floor(limit / 2), Math.floor(text.length / 2));
  const cut = Math.ceil(chars / 4) - Math.ceil((2 * half) / 4);
  return `${text.slice(0, half)}\n…${cut} tokens truncated…\n${text.slice(text.length - half)}`;
}

/** What the model is told about a command, in Codex's unified-exec form. */
export function execOutputText(options: {
  readonly wallMs: number;
  readonly exitCode: number | null;
  readonly sessionId: number | null;
  readonly output: KeptOutput;
  readonly maxTokens: number;
}): string {
  const status =
    options.exitCode === null ? `Process running with session ID ${options.sessionId}` : `Process exited with code ${options.exitCode}`;
  return [
    `Chunk ID: ${randomBytes(3).toString("hex")}`,
    `Wall time: ${(options.wallMs / 1000).toFixed(4)} seconds`,
    status,
    `Original token count: ${Math.ceil(options.output.chars / 4)}`,
    "Output:",
    truncateForModel(options.output, options.maxTokens),
  ].join("\n");
}

/** What the model is told about a command run through the older `shell` / `shell_command` tools. */
export function shellOutputText(options: { readonly wallMs: number; readonly exitCode: number; readonly output: KeptOutput; readonly maxTokens: number }): string {
  return [
    `Exit code: ${options.exitCode}`,
    `Wall time: ${(options.wallMs / 1000).toFixed(1)} seconds`,
    "Output:",
    truncateForModel(options.output, options.maxTokens),
  ].join("\n");
}
