/**
 * Watches a file or a directory tree (inotify, through `fs.watch`) and reports the paths that
 * changed, gathered over a short interval so that a burst of writes is one report. A file is
 * watched through its directory, so an editor that replaces it (write a copy, rename it over)
 * is still seen.
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

/** How long changes are gathered before they are reported together. */
const GATHER_MS = 50;

/** A running watch; {@link close} stops it. */
export class PathWatcher {
  private readonly watcher: FSWatcher;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * Starts watching `target` (a real path). `onChange` gets the absolute paths that changed;
   * `onError` is told once if the watch breaks (the watch is then closed).
   */
  constructor(
    target: string,
    isDirectory: boolean,
    private readonly onChange: (paths: string[]) => void,
    onError: (error: Error) => void,
  ) {
    const dir = isDirectory ? target : path.dirname(target);
    const only = isDirectory ? null : path.basename(target);
    this.watcher = watch(dir, { recursive: isDirectory, persistent: false }, (_event, filename) => {
      const name = filename?.toString();
      if (only !== null && name !== only) return;
      this.pending.add(name ? path.join(dir, name) : dir);
      this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
    });
    this.watcher.on("error", (error) => {
      this.close();
      onError(error);
    });
  }

  /** Stops watching; nothing more is reported. */
  close(): void {
    clearTimeout(this.timer);
    this.pending.clear();
    this.watcher.close();
  }

  private flush(): void {
    this.timer = undefined;
    const paths = [...this.pending].sort();
    this.pending.clear();
    if (paths.length > 0) this.onChange(paths);
  }
}
