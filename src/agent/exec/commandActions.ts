import path from "node:path";
import type { CommandAction } from "../../protocol/items.js";
import { splitWords } from "./shellWords.js";

const READERS = new Set(["cat", "head", "tail", "less", "more", "bat", "nl"]);
const LISTERS = new Set(["ls", "tree", "fd", "du"]);
const SEARCHERS = new Set(["grep", "rg", "ag", "ack", "egrep", "fgrep"]);

/** Best-effort reading of what a shell command does, for clients to render (`read`, `listFiles`, `search`, `unknown`). */
export function parseCommandActions(script: string): CommandAction[] {
  const words = splitWords(script.trim());
  const unknown: CommandAction[] = [{ type: "unknown", command: script }];
  if (!words || words.length === 0) return unknown;
  const [program, ...args] = words as [string, ...string[]];
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (READERS.has(program) || (program === "sed" && args[0] === "-n")) {
    const file = program === "sed" ? operands[1] : operands.at(-1);
    if (!file) return unknown;
    return [{ type: "read", command: script, name: path.basename(file), path: file }];
  }
  if (LISTERS.has(program) || (program === "find" && !args.some((arg) => ["-exec", "-delete", "-name", "-iname"].includes(arg)))) {
    return [{ type: "listFiles", command: script, path: operands[0] ?? null }];
  }
  if (SEARCHERS.has(program) || (program === "find" && args.some((arg) => arg === "-name" || arg === "-iname"))) {
    if (program === "find") return [{ type: "search", command: script, query: args[args.findIndex((arg) => arg.endsWith("name")) + 1] ?? null, path: operands[0] ?? null }];
    return [{ type: "search", command: script, query: operands[0] ?? null, path: operands[1] ?? null }];
  }
  return unknown;
}
