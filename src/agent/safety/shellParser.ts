import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Node as SyntaxNode, Parser } from "../../vendor/webTreeSitter.js";
import { PACKAGE_ROOT } from "../../runtime/version.js";

/** One word of a simple command as bash would pass it, when that can be known without running anything. */
export interface ShellWord {
  /** The word after quote removal; for a word with expansions, its source text. */
  readonly text: string;
  /** The word is exactly `text` whatever the environment: no expansion, substitution or unquoted glob/brace/tilde. */
  readonly literal: boolean;
}

/** A simple command found anywhere in a script (inside substitutions, subshells and nested `bash -c` too). */
export interface ShellCommand {
  readonly words: readonly ShellWord[];
  /**
   * What runs cannot be seen: a program named by an expansion, or a nested shell or `eval` whose
   * script is not a literal. Rules treat such a command as matching every `deny` and `ask`, and
   * never as allowed.
   */
  readonly opaque: boolean;
}

/** What the parser proves about a script. */
export interface ParsedScript {
  /**
   * The script's simple commands as plain word lists, when the script is nothing but simple
   * commands of literal words joined by `&&`, `||`, `;`, `|` or newlines (no redirection,
   * substitution, expansion, assignment, subshell, background job, heredoc or control flow);
   * null otherwise. Only a plain script can be known-safe or allowed by a rule.
   */
  readonly plain: readonly (readonly string[])[] | null;
  /** Every simple command in the script, nested ones included, for `deny` and `ask` rules. */
  readonly commands: readonly ShellCommand[];
}

// The node kinds and tokens of a plain script (the set Codex accepts as "word-only commands").
const PLAIN_KINDS = new Set(["program", "list", "pipeline", "command", "command_name", "word", "string", "string_content", "raw_string", "number", "concatenation"]);
const PLAIN_TOKENS = new Set(["&&", "||", ";", "|", '"', "'"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"]);
// Nested scripts deeper than this are not looked into: the command is opaque.
const MAX_NESTING = 8;
// Unquoted characters that make a word's value depend on the filesystem or environment.
const PATTERN_CHARS = /[*?[\]{}~]/;

let parserPromise: Promise<Parser> | null = null;

/** The bash parser (tree-sitter-bash compiled to WebAssembly), loaded on first use. */
function bashParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    const { Parser, Language } = await import("../../vendor/webTreeSitter.js");
    await Parser.init();
    const language = await Language.load(grammarFile());
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

/**
 * tree-sitter-bash's WebAssembly grammar, as the build copies it into dist/vendor/
 * (scripts/vendor.mjs: the grammar package is a dev dependency); in a checkout not built
 * yet (tests run from src/), the dev dependency's own copy.
 */
function grammarFile(): string {
  const vendored = path.join(PACKAGE_ROOT, "dist", "vendor", "tree-sitter-bash.wasm");
  return existsSync(vendored) ? vendored : createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** Parses a bash script with tree-sitter-bash; see {@link ParsedScript}. */
export async function parseScript(script: string): Promise<ParsedScript> {
  const parser = await bashParser();
  return analyzeJoined(parser, script, 0);
}

/**
 * tree-sitter-bash reads a backslash-newline as a word break, bash as nothing at all (`git pu\⏎sh`
 * is `git push`). A script with one is parsed both ways: both readings' commands count for rules,
 * and it is never plain.
 */
function analyzeJoined(parser: Parser, script: string, depth: number): ParsedScript {
  const parsed = analyze(parser, script, depth);
  const joined = script.replace(/\\\n/g, "");
  if (joined === script) return parsed;
  return { plain: null, commands: [...parsed.commands, ...analyze(parser, joined, depth).commands] };
}

/** Starts loading the parser, so the first command's decision does not wait for it. */
export function preloadShellParser(): Promise<void> {
  return bashParser().then(() => undefined);
}

function analyze(parser: Parser, script: string, depth: number): ParsedScript {
  const tree = parser.parse(script);
  if (!tree) return { plain: null, commands: [{ words: [], opaque: true }] };
  try {
    const root = tree.rootNode;
    const commands: ShellCommand[] = [];
    let plain = !root.hasError;
    const stack: SyntaxNode[] = [root];
    const commandNodes: SyntaxNode[] = [];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.isNamed) {
        if (!PLAIN_KINDS.has(node.type)) plain = false;
        if (node.type === "command") commandNodes.push(node);
      } else if (!PLAIN_TOKENS.has(node.type) && node.type.trim() !== "") {
        plain = false;
      }
      for (const child of node.children) if (child) stack.push(child);
    }
    commandNodes.sort((a, b) => a.startIndex - b.startIndex);
    const plainCommands: string[][] = [];
    for (const node of commandNodes) {
      const words = commandWords(node);
      if (words.some((word) => !word.literal)) plain = false;
      plainCommands.push(words.map((word) => word.text));
      // A program named by an expansion (`$CMD push`) could be anything, and so could a name an alias redefines.
      commands.push({ words, opaque: words[0]?.literal === false || words[0]?.text === "alias" });
      commands.push(...nestedCommands(parser, words, depth));
    }
    if (root.hasError) commands.push({ words: [], opaque: true });
    return { plain: plain && plainCommands.length > 0 ? plainCommands : null, commands };
  } finally {
    tree.delete();
  }
}

/**
 * The commands a word list runs through a shell, `eval` or `trap` (`bash -c SCRIPT`, `eval WORDS…`),
 * wherever that shell appears in it, so a wrapper (`env bash -c …`, `sudo sh -c …`) hides nothing.
 */
function nestedCommands(parser: Parser, words: readonly ShellWord[], depth: number): ShellCommand[] {
  const at = words.findIndex((word) => {
    const program = word.text.split("/").pop() ?? "";
    return program === "eval" || program === "trap" || SHELLS.has(program);
  });
  if (at === -1) return [];
  let script: readonly ShellWord[] = [];
  const program = words[at]!.text.split("/").pop();
  if (program === "eval") {
    script = words.slice(at + 1);
  } else if (program === "trap") {
    // `trap 'COMMANDS' SIGNAL…` runs COMMANDS later, in this shell.
    script = words.slice(at + 1, at + 2).filter((word) => !word.text.startsWith("-"));
  } else {
    const flag = words.findIndex((word, i) => i > at && /^-[A-Za-z]*c[A-Za-z]*$/.test(word.text));
    if (flag !== -1) script = words.slice(flag + 1, flag + 2);
  }
  if (script.length === 0) return [];
  if (depth >= MAX_NESTING || script.some((word) => !word.literal)) return [{ words, opaque: true }];
  return [...analyzeJoined(parser, script.map((word) => word.text).join(" "), depth + 1).commands];
}

/** The words of a `command` node: its name and arguments (assignments and redirections are not words). */
function commandWords(node: SyntaxNode): ShellWord[] {
  const words: ShellWord[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "command_name") {
      const inner = child.namedChild(0);
      if (inner) words.push(wordOf(inner));
    } else if (child.type !== "variable_assignment" && !child.type.endsWith("redirect") && child.type !== "comment") {
      words.push(wordOf(child));
    }
  }
  return words;
}

/** A word's value after quote removal, and whether it is literal. */
function wordOf(node: SyntaxNode): ShellWord {
  switch (node.type) {
    case "word": {
      const literal = !PATTERN_CHARS.test(node.text.replace(/\\./gs, ""));
      return { text: unescapeUnquoted(node.text), literal };
    }
    case "number":
      return { text: node.text, literal: true };
    case "raw_string":
      return { text: node.text.slice(1, -1), literal: true };
    case "string": {
      const literal = node.namedChildren.every((part) => part?.type === "string_content");
      return literal ? { text: unescapeDoubleQuoted(node.text.slice(1, -1)), literal } : { text: node.text, literal };
    }
    case "concatenation": {
      const parts = node.namedChildren.filter((part): part is SyntaxNode => part !== null).map(wordOf);
      const literal = parts.every((part) => part.literal);
      return { text: literal ? parts.map((part) => part.text).join("") : node.text, literal };
    }
    default:
      return { text: node.text, literal: false };
  }
}

/** Bash's quote removal outside quotes: a backslash keeps the next character, a backslash-newline joins lines. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_, c: string) => (c === "\n" ? "" : c));
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}
