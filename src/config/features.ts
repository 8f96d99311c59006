/**
 * The feature flags this server acts on (`[features]` in config.toml, `--enable`/`--disable`,
 * `experimentalFeature/*`). Codex knows many more (see codexKeys.ts); those are accepted and have
 * no effect here, so they are not listed as ours.
 */

/** A feature flag this server implements. */
export interface FeatureFlag {
  readonly name: string;
  readonly stage: "beta" | "underDevelopment" | "stable" | "deprecated" | "removed";
  readonly defaultEnabled: boolean;
  readonly displayName: string;
  readonly description: string;
}

/** Every feature flag this server acts on. */
export const FEATURES: readonly FeatureFlag[] = [
  {
    name: "shell_snapshot",
    stage: "stable",
    defaultEnabled: true,
    displayName: "Shell snapshot",
    description: "Source the login profile once and reuse a snapshot of it for every command, instead of running it anew each time.",
  },
];
