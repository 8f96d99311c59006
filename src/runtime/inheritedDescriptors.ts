/**
 * Descriptors the server inherited from whatever started it (an editor, a CI runner, a shell) and
 * that are not close-on-exec would pass to every process the server starts: a command could write
 * through them to files it may not open. Node opens its own descriptors close-on-exec, so the ones
 * without the flag are exactly the inherited ones; the command line closes them at start-up.
 */
import { closeSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC as /proc/<pid>/fdinfo shows it (octal flags). */
const O_CLOEXEC = 0o2000000;

/**
 * Closes every descriptor above 2 that is not close-on-exec, except Node's IPC channel when it was
 * started with one; returns the numbers closed. Without /proc (not Linux), closes nothing.
 */
export function closeInheritedDescriptors(): number[] {
  const ipc = Number(process.env.NODE_CHANNEL_FD);
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || fd === ipc) continue;
    const flags = descriptorFlags(fd);
    if (flags === null || (flags & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // The listing's own descriptor, gone by now.
    }
  }
  return closed;
}

/** A descriptor's open flags, or null when it is gone. */
function descriptorFlags(fd: number): number | null {
  try {
    const match = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
    return match ? parseInt(match[1]!, 8) : null;
  } catch {
    return null;
  }
}
