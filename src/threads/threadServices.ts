import type { EditorFiles, Host, TurnRunnerDeps } from "../agent/index.js";
import type { AuthStore } from "../config/authStore.js";
import type { Config } from "../config/schema.js";
import type { Activity } from "../runtime/activity.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { SectionStore } from "./sectionStore.js";
import type { ClientRequester, ThreadEmitter } from "./threadEvents.js";
import type { ThreadStore } from "./threadStore.js";

/** What a loaded thread needs from the server: storage, config, time, ids, the way to clients, the agent. */
export interface ThreadServices<S> {
  readonly store: ThreadStore;
  /** The server's configuration; `current` changes when a client writes the config. */
  readonly config: { readonly current: Config };
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly emit: ThreadEmitter<S>;
  readonly requests: ClientRequester<S>;
  /** Where the server runs: relative cwds resolve against its cwd. */
  readonly host: Host;
  /** The server's work in progress: running turns count, and the agent warm-up waits for a quiet spell. */
  readonly activity: Activity;
  /** What turns run with: environment (API keys), tools, model clients. */
  readonly agent: Omit<TurnRunnerDeps, "config">;
  /** The API key a client logged in with, for the providers of turns. */
  readonly auth: AuthStore;
  /** The thread sections (a thread's `section` comes from here). */
  readonly sections: SectionStore;
  /** Threads whose client offers its editor's files (ACP), by thread id. */
  readonly editorFiles: ReadonlyMap<string, EditorFiles>;
}
