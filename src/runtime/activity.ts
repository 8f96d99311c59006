/**
 * The work in progress in a server (requests being served, turns running), so that background
 * chores can wait until there has been none for a while instead of delaying a client.
 */
export class Activity {
  private inProgress = 0;
  /** Bumped whenever work begins, so a quiet spell that work interrupted is not mistaken for one that lasted. */
  private started = 0;
  private idleWaiters: Array<() => void> = [];

  /** Marks work as begun; call the returned function (once is enough) when it is done. */
  begin(): () => void {
    this.inProgress++;
    this.started++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.inProgress === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
  }

  /** Resolves once no work has been in progress for `quietMs` on end; never keeps the process alive. */
  async quiet(quietMs: number): Promise<void> {
    for (;;) {
      if (this.inProgress > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      const started = this.started;
      await new Promise((resolve) => setTimeout(resolve, quietMs).unref());
      if (this.inProgress === 0 && this.started === started) return;
    }
  }
}
