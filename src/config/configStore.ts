import { layerIdentity, type ConfigLayerIdentity, type ConfigLayerValues } from "./layers.js";
import { layerConfig, readUserConfig } from "./load.js";
import type { ConfigOverride } from "./overrides.js";
import { Config } from "./schema.js";
import { editToml, isTable } from "./tomlEdit.js";
import { writeFileAtomic } from "../runtime/atomicFile.js";

/** One change to `config.toml`: a dotted key path (segments may be quoted), a value, and how to merge it. */
export interface ConfigEdit {
  readonly keyPath: string;
  readonly value: unknown;
  /** `replace` sets the value; `upsert` merges a table into the table already there. */
  readonly mergeStrategy: "replace" | "upsert";
}

/** What a write did: the file's new version, and the first edited key a higher layer still overrides. */
export interface ConfigWriteResult {
  readonly version: string;
  readonly overridden: { readonly keyPath: string; readonly effectiveValue: unknown; readonly by: ConfigLayerIdentity } | null;
}

/** A config write that cannot be made; `kind` says whether the request or the file state is at fault. */
export class ConfigWriteError extends Error {
  constructor(
    message: string,
    readonly kind: "invalidValue" | "versionConflict" | "badKeyPath",
    /** For an invalid value: where, and what is wrong (as in -32602's `data.issues`). */
    readonly issues: readonly { readonly path: string[]; readonly message: string }[] = [],
  ) {
    super(message);
    this.name = "ConfigWriteError";
  }
}

/**
 * The configuration as it changes while the server runs: `config/value/write` and
 * `config/batchWrite` edit the user's `config.toml`, and the effective config (the file under the
 * `-c` flags) is rebuilt. Writes run one at a time and each re-reads the file, so concurrent
 * writers never lose each other's edits.
 */
export class ConfigStore {
  private queue: Promise<unknown> = Promise.resolve();
  /** Feature switches set while running (`experimentalFeature/enablement/set`): above the file, like flags, never written. */
  private readonly features = new Map<string, boolean>();

  constructor(
    private state: { readonly config: Config; readonly layers: readonly ConfigLayerValues[] },
    readonly file: string,
    private readonly overrides: readonly ConfigOverride[] = [],
    /** Applied to every rebuilt config (the scripted model adds its provider this way). */
    private readonly finish: (config: Config) => Config = (config) => config,
  ) {}

  /** The effective config now. */
  get current(): Config {
    return this.state.config;
  }

  /** The layers merged into it, highest precedence first. */
  get layers(): readonly ConfigLayerValues[] {
    return this.state.layers;
  }

  /** The user layer's version, as `config/read` reports it. */
  get userVersion(): string {
    const user = this.state.layers.find((layer) => layer.source.type === "user");
    return layerIdentity(user ?? { source: { type: "user", file: this.file }, values: {} }).version;
  }

  /**
   * Applies `edits` to `config.toml` atomically: all of them or none. Fails when `expectedVersion`
   * is not the file's version, a key path is malformed, or the result is not a valid config (the
   * message names the key path).
   */
  write(edits: readonly ConfigEdit[], expectedVersion: string | null | undefined): Promise<ConfigWriteResult> {
    const run = this.queue.then(() => this.writeNow(edits, expectedVersion));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Sets features for the rest of the process (not in config.toml), and rebuilds the effective config. */
  setFeatures(enablement: Readonly<Record<string, boolean>>): Promise<void> {
    const run = this.queue.then(async () => {
      for (const [name, enabled] of Object.entries(enablement)) this.features.set(name, enabled);
      const { merged, layers } = layerConfig(this.file, (await readUserConfig(this.file)).table, this.allOverrides());
      this.state = { config: this.finish(Config.parse(merged)), layers };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The `-c` flags, then the features set while running. */
  private allOverrides(): ConfigOverride[] {
    const features = [...this.features].map(([name, enabled]) => ({ path: ["features", name], value: enabled, source: `features.${name}=${enabled}` }));
    return [...this.overrides, ...features];
  }

  private async writeNow(edits: readonly ConfigEdit[], expectedVersion: string | null | undefined): Promise<ConfigWriteResult> {
    const { text, table: user } = await readUserConfig(this.file);
    const before = layerIdentity({ source: { type: "user", file: this.file }, values: user }).version;
    if (expectedVersion && expectedVersion !== before) {
      throw new ConfigWriteError(`config.toml changed: expected version ${expectedVersion}, found ${before}; read the config again and retry`, "versionConflict");
    }
    for (const edit of edits) applyEdit(user, edit);
    const { merged } = layerConfig(this.file, user, this.allOverrides());
    // The file must be valid on its own (a flag may hide a bad value today, not tomorrow), and under the flags.
    const userProblem = Config.safeParse(user).error;
    const problem = userProblem ?? Config.safeParse(merged).error;
    if (problem) {
      const issues = problem.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
      const [first] = issues;
      const value = valueAt(userProblem ? user : merged, first!.path);
      throw new ConfigWriteError(`invalid value at \`${first!.path.join(".")}\`: ${first!.message} (got ${JSON.stringify(value) ?? "nothing"})`, "invalidValue", issues);
    }
    // Only the edited keys change in the text; the rest of the user's file stays as they wrote it.
    const written = await editToml(text, user);
    await writeFileAtomic(this.file, written.text);
    // The user layer is the table the file reads back as (in its key order), so its version is the one the next read finds.
    const { merged: effective, layers } = layerConfig(this.file, written.table, this.allOverrides());
    this.state = { config: this.finish(Config.parse(effective)), layers };
    // A `-c` flag on the same key still wins: say so, with the value in effect.
    const overridden = edits
      .map((edit) => ({ keyPath: edit.keyPath, effective: valueAt(layers[0]!.values, parseKeyPath(edit.keyPath)) }))
      .find((entry) => entry.effective !== undefined);
    return {
      version: layerIdentity(layers[1]!).version,
      overridden: overridden ? { keyPath: overridden.keyPath, effectiveValue: overridden.effective, by: layerIdentity(layers[0]!) } : null,
    };
  }
}

/** Splits `projects."/tmp/x".trust_level` into its segments. */
export function parseKeyPath(keyPath: string): string[] {
  const segments: string[] = [];
  let rest = keyPath.trim();
  while (rest.length > 0) {
    let segment: string;
    if (rest.startsWith('"')) {
      const end = rest.indexOf('"', 1);
      if (end === -1) throw new ConfigWriteError(`invalid key path \`${keyPath}\`: unterminated quote`, "badKeyPath");
      segment = rest.slice(1, end);
      rest = rest.slice(end + 1);
    } else {
      const dot = rest.indexOf(".");
      segment = (dot === -1 ? rest : rest.slice(0, dot)).trim();
      rest = dot === -1 ? "" : rest.slice(dot);
      if (!/^[A-Za-z0-9_-]+$/.test(segment)) throw new ConfigWriteError(`invalid key path \`${keyPath}\`: bad segment \`${segment}\``, "badKeyPath");
    }
    segments.push(segment);
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      if (rest.length === 0) throw new ConfigWriteError(`invalid key path \`${keyPath}\`: ends with a dot`, "badKeyPath");
    } else if (rest.length > 0) {
      throw new ConfigWriteError(`invalid key path \`${keyPath}\`: expected a dot after \`${segment}\``, "badKeyPath");
    }
  }
  if (segments.length === 0) throw new ConfigWriteError("invalid key path: empty", "badKeyPath");
  return segments;
}

function applyEdit(table: Record<string, unknown>, edit: ConfigEdit): void {
  const segments = parseKeyPath(edit.keyPath);
  const last = segments.pop()!;
  const parents = [table];
  for (const segment of segments) {
    const parent = parents.at(-1)!;
    if (!isTable(parent[segment])) {
      if (edit.value === null) return;
      parent[segment] = {};
    }
    parents.push(parent[segment] as Record<string, unknown>);
  }
  const parent = parents.at(-1)!;
  if (edit.value === null) {
    delete parent[last];
    // A table the clear leaves empty goes too: no bare `[skills]` header stays once `[[skills.config]]` has gone.
    for (let i = segments.length - 1; i >= 0 && Object.keys(parents[i + 1]!).length === 0; i--) delete parents[i]![segments[i]!];
  } else if (edit.mergeStrategy === "upsert" && isTable(parent[last]) && isTable(edit.value)) parent[last] = deepMerge(parent[last], edit.value);
  else parent[last] = edit.value;
}

function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(patch)) merged[key] = isTable(merged[key]) && isTable(value) ? deepMerge(merged[key], value) : value;
  return merged;
}

function valueAt(table: Record<string, unknown>, segments: readonly string[]): unknown {
  let value: unknown = table;
  for (const segment of segments) {
    if (!isTable(value)) return undefined;
    value = value[segment];
  }
  return value;
}
