import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Node as SyntaxNode, Parser } from "../../vendor/webTreeSitter.js";
import { PACKAGE_ROOT } from "../../runtime/version.js";
import { invocations, type WrittenCommand } from "./invocations.js";
import type { ParsedScript, ShellCommand, ShellWord } from "./shellTypes.js";
import { isSensitiveVariable, type Assignment } from "./variables.js";

// The node kinds and tokens of a plain script (the set Codex accepts as "word-only commands").
const PLAIN_KINDS = new Set(["program", "list", "pipeline", "command", "command_name", "word", "string", "string_content", "raw_string", "number", "concatenation"]);
const PLAIN_TOKENS = new Set(["&&", "||", ";", "|", '"', "'"]);
// Nested scripts deeper than this are not looked into: what they run is unknown.
const MAX_NESTING = 8;

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

/** Starts loading the parser, so the first command's decision does not wait for it. */
export function preloadShellParser(): Promise<void> {
  return bashParser().then(() => undefined);
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

function analyze(parser: Parser, script: string, depth: number): ParsedScript {
  const tree = parser.parse(script);
  if (!tree) return { plain: null, commands: [{ words: [], unknown: "the script does not parse" }] };
  try {
    const root = tree.rootNode;
    const nested = (inner: string): ParsedScript =>
      depth >= MAX_NESTING ? { plain: null, commands: [{ words: [], unknown: "its scripts nest too deeply to follow" }] } : analyzeJoined(parser, inner, depth + 1);
    const commands: ShellCommand[] = [];
    let plain = !root.hasError;
    let piped = false;
    const written: { node: SyntaxNode; command: WrittenCommand }[] = [];
    const stack: SyntaxNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.isNamed) {
        if (!PLAIN_KINDS.has(node.type)) plain = false;
        if (node.type === "pipeline") piped = true;
        const command = writtenCommand(node);
        if (command) written.push({ node, command });
        const write = variableWrite(node);
        if (write) commands.push({ words: [], unknown: write });
        const evaluated = evaluatesValue(node) ?? readsDifferently(node);
        if (evaluated) commands.push({ words: [], unknown: evaluated });
      } else if (!PLAIN_TOKENS.has(node.type) && node.type.trim() !== "") {
        plain = false;
      }
      for (const child of node.children) if (child) stack.push(child);
    }
    written.sort((a, b) => a.node.startIndex - b.node.startIndex);
    const plainCommands: string[][] = [];
    for (const { node, command } of written) {
      if (node.type === "command") {
        if (command.words.some((word) => !word.literal)) plain = false;
        plainCommands.push(command.words.map((word) => word.text));
      }
      commands.push(...invocations(command, nested));
    }
    if (root.hasError) commands.push({ words: [], unknown: "the script does not parse" });
    return { plain: plain && plainCommands.length > 0 ? plainCommands : null, piped, commands };
  } finally {
    tree.delete();
  }
}

/**
 * The command a node writes, if it is one: a simple command (its name and arguments; the
 * assignments in front of it), a declaration (`export`, `declare`… with its words, assignments
 * included), `unset`, or an assignment on its own (`NAME=value`).
 */
function writtenCommand(node: SyntaxNode): WrittenCommand | null {
  const children = node.namedChildren.filter((child): child is SyntaxNode => child !== null && child.type !== "comment");
  switch (node.type) {
    case "command": {
      const words: ShellWord[] = [];
      const assignments: Assignment[] = [];
      for (const child of children) {
        if (child.type === "command_name") {
          const inner = child.namedChild(0);
          if (inner) words.push(wordOf(inner));
        } else if (child.type === "variable_assignment") {
          assignments.push(assignmentOf(child));
        } else if (!child.type.endsWith("redirect")) {
          words.push(wordOf(child));
        }
      }
      return { words, assignments };
    }
    case "declaration_command":
    case "unset_command":
      return { words: [literalWord(node.child(0)?.text ?? ""), ...children.map(wordOf)], assignments: [] };
    case "variable_assignment":
      return node.parent?.type === "command" || node.parent?.type === "declaration_command" ? null : { words: [], assignments: [assignmentOf(node)] };
    default:
      return null;
  }
}

/**
 * Why a node that writes a variable that matters makes what runs unknown, for the writes that
 * are not assignments: a `for`/`select` variable, `${NAME:=value}`, arithmetic (`((PATH=1))`).
 * Reads (`$PATH`, `${PATH:-x}`) and assignments, which {@link writtenCommand} gives, are left out.
 */
function variableWrite(node: SyntaxNode): string | null {
  if (node.type !== "variable_name" || !isSensitiveVariable(node.text)) return null;
  const parent = node.parent;
  switch (parent?.type) {
    case "simple_expansion":
    case "variable_assignment":
    case "subscript":
    case "declaration_command":
    case "unset_command":
      return null;
    case "expansion":
      return parent.children.some((child) => child?.type === "=" || child?.type === ":=") ? `it assigns ${node.text} in an expansion` : null;
    default:
      return `it sets ${node.text}`;
  }
}

/** Options of `test`/`[`/`[[` that take a variable's name, and `[[`'s operators that evaluate both sides as arithmetic. */
const NAME_OR_ARITHMETIC_TESTS = new Set(["-v", "-R", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Builtins whose arguments name variables. */
const NAMING_BUILTINS = new Set(["read", "mapfile", "readarray", "unset", "wait"]);
const EVALUATES = "bash evaluates a value here as arithmetic or as a variable's name, and `$(…)` in such a value runs";

/**
 * Why a node makes what runs unknown because bash evaluates a value in it as arithmetic, or as a
 * variable's name, where an array subscript's `$(…)` runs even if it was quoted when written
 * (`let 'x[$(cmd)]'`, `x='a[$(cmd)]'; echo $((x))`, `declare "$v=1"`, `[[ -v $v ]]`, `${!v}`,
 * `${s:v}`, `read "$v"`); null for other nodes. Such a command is asked while a deny rule is in force.
 */
function evaluatesValue(node: SyntaxNode): string | null {
  switch (node.type) {
    case "arithmetic_expansion":
    case "subscript":
    case "c_style_for_statement":
      return EVALUATES;
    case "compound_statement":
      return node.child(0)?.type === "((" ? EVALUATES : null;
    case "expansion":
      // `${!name}` (indirection), `${name:offset}` (a substring, offset and length arithmetic), and
      // `${name@P}` and the other transformations (@P expands the value as a prompt, `$(…)` included).
      return /^\$\{#?!|^\$\{#?[A-Za-z_0-9@*]+:(?![-=+?])|@[A-Za-z]\}$/.test(node.text) ? EVALUATES : null;
    case "test_command":
      return node.descendantsOfType("test_operator").some((operator) => operator !== null && NAME_OR_ARITHMETIC_TESTS.has(operator.text)) ? EVALUATES : null;
    case "declaration_command": {
      const words = node.namedChildren.filter((child): child is SyntaxNode => child !== null);
      const risky = words.some((child) => (child.type === "word" && /^[-+][A-Za-z]*[in]/.test(child.text)) || (child.type !== "word" && child.type !== "variable_assignment" && child.type !== "variable_name"));
      return risky ? EVALUATES : null;
    }
    case "command": {
      const command = writtenCommand(node);
      const [name, ...args] = command?.words ?? [];
      const named = (arg: ShellWord | undefined) => arg !== undefined && (!arg.literal || arg.text.includes("["));
      if (name?.text === "let") return EVALUATES;
      if ((name?.text === "test" || name?.text === "[") && args.some((arg) => arg.text === "-v" || arg.text === "-R")) return EVALUATES;
      if (NAMING_BUILTINS.has(name?.text ?? "") && args.some(named)) return EVALUATES;
      // printf -v NAME: the value is stored in the variable NAME names.
      if (name?.text === "printf" && args.some((arg, i) => arg.text === "-v" && named(args[i + 1]))) return EVALUATES;
      return null;
    }
    default:
      return null;
  }
}

/** Words a command cannot be named by: tree-sitter-bash reads `coproc NAME { …; }` and `time { …; }` as commands named `{`, `}`, `do`… */
const RESERVED = new Set(["{", "}", "(", ")", "!", "[[", "]]", "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "coproc", "time"]);
/** `set` options that change how bash reads what follows: keyword (`-k`: `NAME=value` after the program), history expansion, posix mode. */
const SET_CHANGES_READING = /^[-+][A-Za-z]*[kHp]|^(?:keyword|history|histexpand|posix|privileged)$/;
/** `shopt` options that change how bash reads what follows. */
const SHOPT_CHANGES_READING = new Set(["expand_aliases", "extdebug"]);
const READS_DIFFERENTLY = "bash reads this script differently from the parser here (a compound command after coproc or time, or an option that changes how bash reads what follows)";

/**
 * Why a node makes what runs unknown because bash would read the script differently from
 * tree-sitter-bash: a command named by a reserved word or a brace (a compound command behind
 * `coproc` or `time`, which the grammar splits into commands), `set -k`, history expansion,
 * posix mode, `shopt -s expand_aliases` or `extdebug`, or `set`/`shopt` with words that cannot be
 * known; null for other nodes.
 */
function readsDifferently(node: SyntaxNode): string | null {
  if (node.type !== "command") return null;
  const [name, ...args] = writtenCommand(node)?.words ?? [];
  if (!name) return null;
  if (RESERVED.has(name.text) && (name.text === "coproc" || name.text === "time" ? args.some((arg) => RESERVED.has(arg.text)) : true)) return READS_DIFFERENTLY;
  if (name.text === "set" && args.some((arg) => !arg.literal || SET_CHANGES_READING.test(arg.text))) return READS_DIFFERENTLY;
  if (name.text === "shopt" && args.some((arg) => !arg.literal || SHOPT_CHANGES_READING.has(arg.text))) return READS_DIFFERENTLY;
  return null;
}

function assignmentOf(node: SyntaxNode): Assignment {
  const name = node.childForFieldName("name");
  const value = node.childForFieldName("value");
  const variable = name?.type === "subscript" ? name.childForFieldName("name") : name;
  return { name: variable?.text ?? "", value: value ? wordOf(value) : literalWord("") };
}

function literalWord(text: string): ShellWord {
  return { text, literal: true, splits: false };
}

/** A word's value after quote removal, whether it is literal, and whether bash may split it. */
function wordOf(node: SyntaxNode): ShellWord {
  switch (node.type) {
    case "word": {
      const pattern = patternIn(unquotedShape(node));
      return pattern === null ? literalWord(unescapeUnquoted(node.text)) : { text: node.text, literal: false, splits: pattern !== "tilde" };
    }
    case "number":
    case "variable_name":
      return literalWord(node.text);
    case "raw_string":
      return literalWord(node.text.slice(1, -1));
    case "string": {
      const literal = node.namedChildren.every((part) => part?.type === "string_content");
      // "$@" and "${a[@]}" are as many words as there are elements.
      const splits = node.namedChildren.some((part) => part?.type !== "string_content" && part?.text.includes("@"));
      return literal ? literalWord(unescapeDoubleQuoted(node.text.slice(1, -1))) : { text: node.text, literal, splits: splits ?? false };
    }
    case "concatenation": {
      const nodes = node.namedChildren.filter((part): part is SyntaxNode => part !== null);
      const parts = nodes.map(wordOf);
      // tree-sitter cuts `pu{sh,}` into words; the pattern is in their joined shape.
      const pattern = patternIn(nodes.map(unquotedShape).join(""));
      const literal = pattern === null && parts.every((part) => part.literal);
      return { text: literal ? parts.map((part) => part.text).join("") : node.text, literal, splits: (pattern !== null && pattern !== "tilde") || parts.some((part) => part.splits) };
    }
    case "variable_assignment": {
      const assignment = assignmentOf(node);
      const operator = node.children.some((child) => child?.type === "+=") ? "+=" : "=";
      return assignment.value.literal ? literalWord(`${node.childForFieldName("name")?.text ?? ""}${operator}${assignment.value.text}`) : { text: node.text, literal: false, splits: false };
    }
    case "ansi_c_string":
    case "translated_string":
    case "process_substitution":
      return { text: node.text, literal: false, splits: false };
    default:
      return { text: node.text, literal: false, splits: true };
  }
}

/** A word part's text where only unquoted characters count: escaped characters and quoted parts become `x`. */
function unquotedShape(node: SyntaxNode): string {
  return node.type === "word" ? node.text.replace(/\\./gs, "x") : "x";
}

/**
 * What makes an unquoted word's value depend on the filesystem or the environment: a glob
 * (`*`, `?`, `[…]`) or a brace expansion (`{a,b}`, `{1..3}`), either of which may make several
 * words, or a tilde; null for none. `[` alone (the test command) and `{}` are plain words.
 */
function patternIn(unescaped: string): "glob" | "brace" | "tilde" | null {
  if (/[*?]|\[[^\]]*\]/.test(unescaped)) return "glob";
  if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(unescaped)) return "brace";
  return unescaped.includes("~") ? "tilde" : null;
}

/** Bash's quote removal outside quotes: a backslash keeps the next character, a backslash-newline joins lines. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_, c: string) => (c === "\n" ? "" : c));
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}
