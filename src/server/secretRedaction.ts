const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|credential|private[_-]?key)/i;
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)/i;
// Shapes of common credentials, wherever they appear in text.
const SECRET_SHAPES = [/\bsk-[A-Za-z0-9_-]{16,}\b/g, /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi, /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, /\bAKIA[0-9A-Z]{16}\b/g];

/** The values of environment variables that look like secrets (API keys, tokens), to scrub from logs. */
export function secretValuesOf(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_ENV.test(name) && typeof value === "string" && value.length >= 6)
    .map(([, value]) => value!);
}

/**
 * A copy of `value` safe to log: fields named like secrets are replaced, and credential-shaped
 * text and the given secret values are masked inside every string.
 */
export function redactSecrets(value: unknown, secretValues: readonly string[] = []): unknown {
  const scrub = (text: string): string => {
    let result = text;
    for (const secret of secretValues) result = result.split(secret).join("[REDACTED]");
    for (const shape of SECRET_SHAPES) result = result.replace(shape, "[REDACTED]");
    return result;
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return scrub(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, child]) => [key, SECRET_KEY.test(key) && typeof child !== "object" ? "[REDACTED]" : walk(child)]),
      );
    }
    return node;
  };
  return walk(value);
}
