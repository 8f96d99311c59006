/**
 * The `deprecationNotice` a client gets, before the response, when it asks for a thread's whole
 * history at once: every thread here is paginated (`historyMode: "paginated"`), so, as Codex, we
 * point it at paging instead.
 */
export const FULL_HISTORY_NOTICES = {
  /** `thread/read` with `includeTurns: true`. */
  read: "Reading a thread with `includeTurns: true` loads its whole history, which is deprecated: leave `includeTurns` unset and page with `thread/turns/list` and `thread/items/list`.",
  /** `thread/resume` or `thread/fork` without `excludeTurns: true`. */
  load: "Loading a thread with its whole history is deprecated: pass `excludeTurns: true` and page with `thread/turns/list` and `thread/items/list`.",
} as const;
