/** Quotes one argument for a POSIX shell, only when it needs it. */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one display string, the way Codex shows commands (`/bin/bash -lc 'ls -la'`). */
export function displayCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}

/**
 * Splits a simple shell command into words (quotes and backslashes honoured); null when it uses
 * anything a word list cannot represent (pipes, `&&`, redirections, substitutions, globs).
 */
export function splitWords(script: string): string[] | null {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end === -1) return null;
      word += script.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < script.length && script[j] !== '"'; j++) {
        if ("$`".includes(script[j]!)) return null;
        if (script[j] === "\\" && j + 1 < script.length) j++;
        word += script[j];
      }
      if (j >= script.length) return null;
      i = j;
      inWord = true;
    } else if (c === "\\" && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else if ("|&;<>()$`*?[]{}~!#".includes(c)) {
      return null;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
