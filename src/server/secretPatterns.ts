/** What a masked secret becomes in a log. */
export const MASK = "[REDACTED]";

/** A run of text to mask: `[start, end)`. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * A credential's shape: a distinctive head, then at least `min` characters of `body`. The head
 * alone, at the end of a streamed chunk, already starts a credential (see `openEnd`).
 */
interface Shape {
  readonly head: string;
  readonly body: string;
  readonly min: number;
  readonly flags?: string;
}

const SHAPES: readonly Shape[] = [
  { head: String.raw`\bsk-`, body: "[A-Za-z0-9_-]", min: 16 }, // OpenAI, Anthropic and their look-alikes
  { head: String.raw`\bgh[pousr]_`, body: "[A-Za-z0-9]", min: 20 }, // GitHub tokens
  { head: String.raw`\bgithub_pat_`, body: "[A-Za-z0-9_]", min: 20 }, // GitHub fine-grained tokens
  { head: String.raw`\bxox[baprs]-`, body: "[A-Za-z0-9-]", min: 10 }, // Slack tokens
  { head: String.raw`\bAKIA`, body: "[0-9A-Z]", min: 16 }, // AWS access key ids
  { head: String.raw`\bAIza`, body: "[0-9A-Za-z_-]", min: 30 }, // Google API keys
  { head: String.raw`\bBearer\s+`, body: "[A-Za-z0-9._~+/=-]", min: 8, flags: "i" },
  { head: "-----BEGIN [A-Z ]*PRIVATE KEY-----", body: String.raw`[A-Za-z0-9+/=\s]`, min: 16 }, // PEM keys
];

const COMPILED = SHAPES.map(({ head, body, min, flags = "" }) => ({
  whole: new RegExp(`${head}${body}{${min},}`, `g${flags}`),
  open: new RegExp(`${head}${body}*$`, flags),
}));

// A known secret's first characters at the end of a chunk are masked from this many on: fewer
// say too little about the secret to hide, and would mask ordinary text too often.
const MIN_OPEN_PREFIX = 4;

/**
 * Where `text` holds a secret: every occurrence of a known secret value and every
 * credential-shaped run. With `openEnd` (text that a stream may continue), also a tail that may be
 * the start of one: a known secret's first characters, or a credential's head and body so far.
 */
export function secretSpans(text: string, secrets: readonly string[], openEnd = false): Span[] {
  const spans: Span[] = [];
  for (const secret of secrets) {
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + secret.length)) {
      spans.push({ start: at, end: at + secret.length });
    }
    if (openEnd) {
      const start = openPrefixStart(text, secret);
      if (start !== -1) spans.push({ start, end: text.length });
    }
  }
  for (const { whole, open } of COMPILED) {
    for (const match of text.matchAll(whole)) spans.push({ start: match.index, end: match.index + match[0].length });
    const tail = openEnd ? open.exec(text) : null;
    if (tail) spans.push({ start: tail.index, end: text.length });
  }
  return spans;
}

/** Where the longest tail of `text` that begins `secret` (and is not all of it) starts, or -1. */
function openPrefixStart(text: string, secret: string): number {
  const last = text.length - MIN_OPEN_PREFIX;
  for (let at = text.indexOf(secret[0]!, Math.max(0, text.length - secret.length + 1)); at !== -1 && at <= last; at = text.indexOf(secret[0]!, at + 1)) {
    if (secret.startsWith(text.slice(at))) return at;
  }
  return -1;
}

/**
 * `text` from `from` on, each run of spans replaced by {@link MASK}. A span that begins before
 * `from` masks its part after it: a stream's new chunk hides the end of a secret its carried-over
 * context began.
 */
export function maskSpans(text: string, spans: readonly Span[], from = 0): string {
  const sorted = spans.filter((span) => span.end > from && span.end > span.start).sort((a, b) => a.start - b.start);
  let result = "";
  let at = from;
  let masking = false;
  for (const { start, end } of sorted) {
    if (end <= at) continue;
    // Overlapping or touching the mask just written: extend it.
    if (!(masking && start <= at)) result += text.slice(at, Math.max(start, at)) + MASK;
    at = end;
    masking = true;
  }
  return result + text.slice(at);
}

/** `text` with known secrets and credential-shaped runs masked. */
export function redactText(text: string, secrets: readonly string[]): string {
  return maskSpans(text, secretSpans(text, secrets));
}
