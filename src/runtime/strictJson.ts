/**
 * JSON that must mean one thing: `JSON.parse` silently keeps the last of two equal keys, so an
 * answer carrying `"outcome"` twice would be read by whichever came last. Here such a text, like
 * anything that is not exactly one JSON value, is refused.
 */

/** The one JSON value `text` holds, or undefined when it is not valid JSON or an object in it repeats a key (compared after unescaping). */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return hasRepeatedKey(text) ? undefined : value;
}

/** Whether valid JSON `text` has an object with the same key twice. Only called on text JSON.parse accepted. */
function hasRepeatedKey(text: string): boolean {
  // One entry per open object (its keys so far) or array (null).
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const keys = open.at(-1);
      if (keys && keyNext) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return true;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === "{") {
      open.push(new Set());
      keyNext = true;
    } else if (c === "[") {
      open.push(null);
      keyNext = false;
    } else if (c === "}" || c === "]") {
      open.pop();
      keyNext = false;
    } else if (c === ",") {
      keyNext = open.at(-1) instanceof Set;
    }
  }
  return false;
}
