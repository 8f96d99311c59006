import { MASK, maskSpans, redactText, secretSpans } from "./secretPatterns.js";

const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|credential|private[_-]?key)/i;
// Every value under these is a secret, whatever its name (`X-Custom-Auth`): a provider's headers and
// query parameters, as config keys, dotted `-c`-style keys, or `config/*Write` key paths.
const SECRET_TABLE = /(^|\.)(http_headers|query_params|httpHeaders|queryParams)(\.|$)/;
const BASE64_FIELD = /base64$/i;
// Token counts (`inputTokens`, `total_tokens`): named like secrets, but a number there is a count.
const COUNT_KEY = /tokens$/i;

/**
 * Secret values to mask, as text and as the Latin-1 spelling of their UTF-8 bytes: decoded base64
 * payloads are searched as Latin-1, one character a byte, so any bytes re-encode unchanged.
 */
export interface KnownSecrets {
  readonly text: readonly string[];
  readonly bytes: readonly string[];
}

/** {@link KnownSecrets} of `values`, each also in its base64 spellings (so `echo $KEY | base64` output is masked too). */
export function knownSecrets(values: Iterable<string>): KnownSecrets {
  const text = [...new Set([...values].flatMap((value) => [value, ...base64Spellings(value)]))];
  return { text, bytes: text.map((value) => Buffer.from(value, "utf8").toString("latin1")) };
}

/**
 * The base64 text that `value` contributes wherever it sits in an encoded payload: one spelling
 * per byte offset modulo 3, without the characters that also encode neighbouring bytes.
 */
function base64Spellings(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  return [0, 1, 2]
    .map((offset) => {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
      return encoded.slice(offset === 0 ? 0 : 4, Math.floor((offset + bytes.length) / 3) * 4);
    })
    .filter((spelling) => spelling.length >= 8);
}

/** The bytes of a base64 payload as Latin-1 text (one character a byte). */
export function base64ToLatin1(payload: string): string {
  return Buffer.from(payload, "base64").toString("latin1");
}

/** Latin-1 text (one character a byte) as a base64 payload. */
export function latin1ToBase64(text: string): string {
  return Buffer.from(text, "latin1").toString("base64");
}

/** A base64 payload with the secrets in its bytes masked; the payload itself when it holds none. */
function redactBase64(payload: string, secrets: KnownSecrets): string {
  const bytes = base64ToLatin1(payload);
  const spans = secretSpans(bytes, secrets.bytes);
  return spans.length === 0 ? payload : latin1ToBase64(maskSpans(bytes, spans));
}

/**
 * A copy of `value` safe to log: fields named like secrets and everything under a provider's
 * `http_headers` / `query_params` are replaced, base64 fields (`deltaBase64`, `dataBase64`) are
 * decoded, masked and re-encoded, and known secrets and credential-shaped text are masked inside
 * every string.
 */
export function redactSecrets(value: unknown, secrets: KnownSecrets): unknown {
  const walk = (node: unknown, key: string, secretTable: boolean): unknown => {
    // A value that serializes as another (a large result, a base64 field encoded when written) is logged as what it serializes to.
    if (node !== null && typeof node === "object" && typeof (node as { toJSON?: unknown }).toJSON === "function") node = (node as { toJSON: () => unknown }).toJSON();
    if (typeof node === "string") {
      if (secretTable || SECRET_KEY.test(key)) return MASK;
      return BASE64_FIELD.test(key) ? redactBase64(node, secrets) : redactText(node, secrets.text);
    }
    if (Array.isArray(node)) return node.map((child) => walk(child, key, secretTable));
    if (node && typeof node === "object") {
      // A config write's `value` is under its `keyPath`.
      const keyPath = (node as { keyPath?: unknown }).keyPath;
      const valueIsSecret = typeof keyPath === "string" && SECRET_TABLE.test(keyPath);
      return Object.fromEntries(
        Object.entries(node).map(([name, child]) => [name, walk(child, name, secretTable || SECRET_TABLE.test(name) || (valueIsSecret && name === "value"))]),
      );
    }
    if (typeof node === "number" && COUNT_KEY.test(key)) return node;
    return node !== undefined && node !== null && SECRET_KEY.test(key) ? MASK : node;
  };
  return walk(value, "", false);
}
