import { createHash } from "node:crypto";

/** Where a layer of configuration comes from: `config.toml`, or the `-c` flags the server was started with. */
export type ConfigLayerSource = { readonly type: "user"; readonly file: string } | { readonly type: "sessionFlags" };

/** One layer's own values, before merging. */
export interface ConfigLayerValues {
  readonly source: ConfigLayerSource;
  readonly values: Record<string, unknown>;
}

/** A layer's identity: its source and a version that changes with its content. */
export interface ConfigLayerIdentity {
  readonly name: ConfigLayerSource;
  readonly version: string;
}

/** The version of a layer: a digest of its values, so a client can tell when it changed. */
export function layerIdentity(layer: ConfigLayerValues): ConfigLayerIdentity {
  const digest = createHash("sha256").update(JSON.stringify(layer.values)).digest("hex").slice(0, 16);
  return { name: layer.source, version: `sha256:${digest}` };
}

/**
 * For every leaf key path (`model`, `model_providers.mock.base_url`, …), the layer its value
 * comes from; `layers` are ordered highest precedence first.
 */
export function configOrigins(layers: readonly ConfigLayerValues[]): Record<string, ConfigLayerIdentity> {
  const origins: Record<string, ConfigLayerIdentity> = {};
  for (const layer of [...layers].reverse()) {
    const identity = layerIdentity(layer);
    for (const key of leafPaths(layer.values, "")) origins[key] = identity;
  }
  return origins;
}

function leafPaths(table: Record<string, unknown>, prefix: string): string[] {
  return Object.entries(table).flatMap(([key, value]) => {
    const path = `${prefix}${key}`;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? leafPaths(value as Record<string, unknown>, `${path}.`)
      : [path];
  });
}
