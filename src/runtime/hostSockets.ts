/**
 * What this host's TCP tables and the server's own processes' descriptors show, read in batches:
 * every caller waiting at a moment shares one reading that starts after its call (so it sees
 * whatever existed when it asked), and a burst of connections costs a few readings, not one each.
 * Readings are asynchronous, a few processes at a time, so they never stall the server.
 */
import { readdir, readFile, readlink, stat } from "node:fs/promises";

/** One connection of /proc/net/tcp{,6}: its state, its socket's owner and inode. */
export interface TcpEntry {
  readonly state: string;
  readonly uid: number;
  readonly inode: string;
}

/** The TCP tables: entries by `"<local> <remote>"`, addresses as the tables write them. */
export type TcpTables = ReadonlyMap<string, TcpEntry>;

/** Socket inodes held by processes of the server's uid → the user namespaces of those processes; null when the reading ran out of budget. */
export type SocketHolders = ReadonlyMap<string, ReadonlySet<string>> | null;

/**
 * Descriptors looked at in one reading before it gives up (its callers then refuse): a sandboxed
 * command holding a great many open descriptors could otherwise make every reading long.
 */
const SCAN_BUDGET = 200_000;
const SCAN_CONCURRENCY = 8;

/** A batch of readings of one kind: the one running, and the next one that callers meanwhile wait for. */
class Batched<T> {
  private running: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  /** A reading that starts no earlier than this call. */
  fresh(): Promise<T> {
    if (!this.running) {
      this.running = this.read().finally(() => (this.running = null));
      return this.running;
    }
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.fresh();
      });
    return this.next;
  }
}

const tables = new Batched(readTables);
const holders = new Batched(() => readHolders(process.getuid?.() ?? -1));

/** The TCP tables as they are now. */
export function freshTcpTables(): Promise<TcpTables> {
  return tables.fresh();
}

/** Who of the server's uid holds which socket, now. */
export function freshSocketHolders(): Promise<SocketHolders> {
  return holders.fresh();
}

async function readTables(): Promise<TcpTables> {
  const entries = new Map<string, TcpEntry>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = await readFile(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length >= 10) entries.set(`${fields[1]} ${fields[2]}`, { state: fields[3]!, uid: Number(fields[7]), inode: fields[9]! });
    }
  }
  return entries;
}

async function readHolders(uid: number): Promise<SocketHolders> {
  const found = new Map<string, Set<string>>();
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  let budget = SCAN_BUDGET;
  const scan = async (pid: string) => {
    try {
      if ((await stat(`/proc/${pid}`)).uid !== uid) return;
      const fds = await readdir(`/proc/${pid}/fd`);
      budget -= fds.length;
      if (budget < 0) return;
      const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
      const sockets = links.filter((link) => link.startsWith("socket:[")).map((link) => link.slice(8, -1));
      if (sockets.length === 0) return;
      const namespace = await readlink(`/proc/${pid}/ns/user`);
      for (const inode of sockets) {
        let set = found.get(inode);
        if (!set) found.set(inode, (set = new Set()));
        set.add(namespace);
      }
    } catch {
      // Gone, or not ours to read.
    }
  };
  for (let i = 0; i < pids.length && budget >= 0; i += SCAN_CONCURRENCY) await Promise.all(pids.slice(i, i + SCAN_CONCURRENCY).map(scan));
  return budget < 0 ? null : found;
}
