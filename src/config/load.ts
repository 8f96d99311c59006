import { readFile } from "node:fs/promises";
import { describeErrno } from "../runtime/systemErrors.js";
import path from "node:path";
import { parse, TomlError } from "../vendor/smolToml.js";
import type { z } from "zod";
import { CODEX_CONFIG_KEYS } from "./codexKeys.js";
import { locateKey } from "./keyLocator.js";
import { nearestKey } from "./nearestKey.js";
import { applyOverride, type ConfigOverride } from "./overrides.js";
import type { ConfigWarningNotification } from "../protocol/notifications.js";
import type { ConfigLayerValues } from "./layers.js";
import { Config } from "./schema.js";

/** A config problem the user can fix; its message names the file, line and key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The effective configuration, where it came from, and what in it has no effect. */
export interface LoadedConfig {
  readonly file: string;
  readonly config: Config;
  /** The layers merged into `config`, highest precedence first. */
  readonly layers: readonly ConfigLayerValues[];
  readonly warnings: readonly ConfigWarningNotification[];
}

/** Reads `<home>/config.toml` (absent is fine), applies `-c` overrides, and validates the result. */
export async function loadConfig(home: string, overrides: readonly ConfigOverride[] = [], options: { readonly strict?: boolean } = {}): Promise<LoadedConfig> {
  const file = path.join(home, "config.toml");
  const text = await readConfigText(file);
  const user = parseToml(file, text);
  if (options.strict) refuseUnknownKeys(file, text, user);
  const { merged: raw, layers } = layerConfig(file, user, overrides);
  const result = Config.safeParse(raw);
  if (!result.success) throw new ConfigError(describeIssue(file, text, overrides, result.error.issues[0]!));
  return { file, config: result.data, layers, warnings: unusedKeyWarnings(file, raw) };
}

/** Reads `config.toml`'s text and the plain table it parses to (an absent file is an empty one). */
export async function readUserConfig(file: string): Promise<{ readonly text: string; readonly table: Record<string, unknown> }> {
  const text = await readConfigText(file);
  return { text, table: parseToml(file, text) };
}

/**
 * The `-c` overrides laid over the user's table (unvalidated), and the two layers, highest
 * precedence first: what both start-up and config writes build the effective config from.
 */
export function layerConfig(
  file: string,
  user: Record<string, unknown>,
  overrides: readonly ConfigOverride[],
): { readonly merged: Record<string, unknown>; readonly layers: ConfigLayerValues[] } {
  const flags: Record<string, unknown> = {};
  const merged = structuredClone(user);
  for (const override of overrides) {
    applyOverride(merged, override);
    applyOverride(flags, override);
  }
  return {
    merged,
    layers: [
      { source: { type: "sessionFlags" }, values: flags },
      { source: { type: "user", file }, values: user },
    ],
  };
}

/**
 * Codex configs carry many keys we do not read; say which, once, so a typo does not go unnoticed.
 * A key neither Codex nor this server knows is most likely a typo: it comes first, with the
 * nearest known key ("did you mean approval_policy?").
 */
function unusedKeyWarnings(file: string, raw: Record<string, unknown>): ConfigWarningNotification[] {
  const unused = Object.keys(raw).filter((key) => !Object.hasOwn(Config.shape, key));
  if (unused.length === 0) return [];
  const known = [...Object.keys(Config.shape), ...CODEX_CONFIG_KEYS];
  const unknown = unused.filter((key) => !CODEX_CONFIG_KEYS.has(key));
  const named = (key: string) => {
    const near = unknown.includes(key) ? nearestKey(key, known) : null;
    return near ? `${key} (did you mean ${near}?)` : key;
  };
  const ordered = [...unknown, ...unused.filter((key) => CODEX_CONFIG_KEYS.has(key))];
  return [
    {
      summary:
        unknown.length > 0
          ? `config.toml has ${unknown.length === 1 ? "a key" : "keys"} no Codex or agent-app-server version knows: ${unknown.map(named).join(", ")}`
          : `${unused.length} config key(s) have no effect in agent-app-server`,
      details: `Ignored keys: ${ordered.map(named).join(", ")}`,
      path: file,
    },
  ];
}

/** `--strict-config`: a key of config.toml that neither Codex nor this server knows is an error, as in Codex. */
function refuseUnknownKeys(file: string, text: string, user: Record<string, unknown>): void {
  const unknown = Object.keys(user).find((key) => !Object.hasOwn(Config.shape, key) && !CODEX_CONFIG_KEYS.has(key));
  if (unknown === undefined) return;
  const line = locateKey(text, [unknown]);
  throw new ConfigError(`Invalid config file ${line === undefined ? file : `${file}, line ${line}`}: unknown configuration field \`${unknown}\` (--strict-config)`);
}

async function readConfigText(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw new ConfigError(`Cannot read config file ${file}: ${describeErrno(error)} (${(error as NodeJS.ErrnoException).code ?? "error"}); make it a readable file, or remove it`);
  }
  try {
    // TOML is UTF-8; a lenient decode would turn bad bytes into U+FFFD and accept a config nobody wrote.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigError(`Invalid config file ${file}: it is not UTF-8 text (byte ${firstInvalidByte(bytes)}); save it as UTF-8`);
  }
}

/** The offset of the first byte that does not decode as UTF-8. */
function firstInvalidByte(bytes: Buffer): number {
  let low = 0;
  let high = bytes.length;
  // The longest valid prefix, found by halving: decoding is all-or-nothing.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (validUtf8(bytes.subarray(0, middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

function validUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

function parseToml(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(`Invalid config file ${file}, line ${error.line}, column ${error.column}: ${reason}${quoteHint(text, error.line)}`);
    }
    throw error;
  }
}

/** For `key = bare-word` (an unquoted string, the usual slip), how to write it. */
function quoteHint(text: string, line: number): string {
  const match = /^\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z][^"'\[{#]*?)\s*(?:#.*)?$/.exec(text.split(/\r?\n/)[line - 1] ?? "");
  if (!match || /^(true|false|inf|nan)$/.test(match[2]!)) return "";
  return ` (a string needs quotes: ${match[1]} = "${match[2]}")`;
}

function describeIssue(
  file: string,
  text: string,
  overrides: readonly ConfigOverride[],
  issue: z.core.$ZodIssue,
): string {
  const key = issue.path.map(String).join(".");
  const override = [...overrides].reverse().find((o) => o.path.every((part, i) => String(issue.path[i]) === part));
  if (override) return `Invalid config override -c ${override.source}: key \`${key}\`: ${issue.message}`;
  const line = locateKey(text, issue.path);
  const where = line === undefined ? file : `${file}, line ${line}`;
  return `Invalid config file ${where}: key \`${key}\`: ${issue.message}`;
}
