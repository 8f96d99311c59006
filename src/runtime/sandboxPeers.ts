/**
 * A sandboxed command that is granted network shares the server's network namespace, so it can
 * reach the server's own TCP listeners on loopback. Every sandbox runs in a user namespace of its
 * own, and its processes keep the server's uid. So a connection from this host is served only
 * when its other end is positively a process outside every sandbox: an open socket of another
 * user's (never one of our sandboxes), or one of the server's uid held, now, only by processes in
 * the server's own user namespace. Everything else is refused before a byte of it is read: a
 * socket held in a sandbox, one held by no process at all (sent away in a message over a
 * socketpair while the check looks), one no longer open or gone from the tables (its process
 * may have written a request and exited). A peer on another host is not affected.
 */
import { readlinkSync } from "node:fs";
import { readdir, readFile, readlink, stat } from "node:fs/promises";
import net from "node:net";
import os from "node:os";

const ESTABLISHED = "01";

/**
 * A TCP server whose connections reach `onConnection` only when their peer is not sandboxed
 * (see above); the others are closed unread. Unix-socket connections pass unchecked: a sandboxed
 * command cannot create a Unix socket at all (its system-call filter refuses it).
 */
export function guardedServer(onConnection: (socket: net.Socket) => void): net.Server {
  return net.createServer({ pauseOnConnect: true }, (socket) => {
    void peerIsSandboxed(socket).then((sandboxed) => {
      if (sandboxed) {
        socket.destroy();
        return;
      }
      onConnection(socket);
      socket.resume();
    });
  });
}

/**
 * Whether the connection must be refused (see above): its peer is on this host and not positively
 * outside every sandbox. False for non-TCP sockets and peers on other hosts.
 */
export async function peerIsSandboxed(socket: net.Socket): Promise<boolean> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return false;
  // The peer's socket is the entry whose local end is our remote end, and the other way round.
  const entry = await findEntry(remoteAddress, remotePort, localAddress, localPort);
  if (!entry) return isLocalAddress(remoteAddress);
  if (entry.state !== ESTABLISHED || entry.inode === "0") return true;
  const ownUid = process.getuid?.() ?? -1;
  if (entry.uid !== ownUid) return false;
  const holders = await holderNamespaces(entry.inode, ownUid);
  const own = ownUserNamespace();
  if (holders === null || holders.size === 0 || [...holders].some((namespace) => namespace !== own)) return true;
  // Still open and unchanged after the scan: held all along by processes in our own namespace.
  const again = await findEntry(remoteAddress, remotePort, localAddress, localPort, [entry.table]);
  return again === null || again.inode !== entry.inode || again.state !== ESTABLISHED;
}

/** Whether `address` is one of this host's: loopback, or an address of one of its interfaces. */
function isLocalAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, "");
  if (plain === "::1" || plain.startsWith("127.")) return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((entry) => entry.address.replace(/^::ffff:/i, "") === plain) ?? false);
}

interface TcpEntry {
  /** The table it was found in. */
  readonly table: string;
  readonly state: string;
  readonly uid: number;
  readonly inode: string;
}

/**
 * The /proc/net/tcp{,6} entry for a connection from `local` to `remote` (either address family's
 * spelling). Each table costs milliseconds to read: the second only when the first has no entry.
 */
async function findEntry(
  localAddress: string,
  localPort: number,
  remoteAddress: string,
  remotePort: number,
  tables: readonly string[] = ["/proc/net/tcp", "/proc/net/tcp6"],
): Promise<TcpEntry | null> {
  const locals = spellings(localAddress).map((hex) => `${hex}:${hexPort(localPort)}`);
  const remotes = spellings(remoteAddress).map((hex) => `${hex}:${hexPort(remotePort)}`);
  for (const table of tables) {
    let text: string;
    try {
      text = await readFile(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !locals.includes(fields[1]!) || !remotes.includes(fields[2]!)) continue;
      return { table, state: fields[3]!, uid: Number(fields[7]), inode: fields[9]! };
    }
  }
  return null;
}

/** An address as /proc/net/tcp (IPv4) and /proc/net/tcp6 write it: 32-bit words in host (little-endian) order. */
function spellings(address: string): string[] {
  const v4 = /^(?:::ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (v4) {
    const bytes = v4.split(".").map(Number);
    const word = hexWord(bytes);
    return [word, `0000000000000000FFFF0000${word}`];
  }
  const bytes = ipv6Bytes(address);
  if (!bytes) return [];
  let hex = "";
  for (let i = 0; i < 16; i += 4) hex += hexWord(bytes.slice(i, i + 4));
  return [hex];
}

/** Four bytes in network order, as the little-endian 32-bit word /proc prints. */
function hexWord(bytes: readonly number[]): string {
  return [...bytes].reverse().map((byte) => byte.toString(16).padStart(2, "0").toUpperCase()).join("");
}

function hexPort(port: number): string {
  return port.toString(16).padStart(4, "0").toUpperCase();
}

/** The 16 bytes of an IPv6 address, or null. */
function ipv6Bytes(address: string): number[] | null {
  if (!net.isIPv6(address)) return null;
  const [head = "", tail = ""] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = address.includes("::") ? groups(tail) : [];
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/**
 * Descriptors looked at before the guard gives up on a connection (and refuses it): a sandboxed
 * command holding a great many open descriptors could otherwise make every check long. The scan
 * is asynchronous, a few processes at a time, so it never stalls the server meanwhile.
 */
const SCAN_BUDGET = 200_000;
const SCAN_CONCURRENCY = 8;

/**
 * The user namespaces of the processes of `uid` that hold socket `inode` now (none: it is held by
 * no process of ours), or null when the scan ran out of budget.
 */
async function holderNamespaces(inode: string, uid: number): Promise<Set<string> | null> {
  const target = `socket:[${inode}]`;
  const namespaces = new Set<string>();
  let pids: string[];
  try {
    pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return namespaces;
  }
  let budget = SCAN_BUDGET;
  const scan = async (pid: string) => {
    try {
      if ((await stat(`/proc/${pid}`)).uid !== uid) return;
      const fds = await readdir(`/proc/${pid}/fd`);
      budget -= fds.length;
      if (budget < 0) return;
      const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")));
      if (links.includes(target)) namespaces.add(await readlink(`/proc/${pid}/ns/user`));
    } catch {
      // Gone, or not ours to read.
    }
  };
  for (let i = 0; i < pids.length && budget >= 0; i += SCAN_CONCURRENCY) await Promise.all(pids.slice(i, i + SCAN_CONCURRENCY).map(scan));
  return budget < 0 ? null : namespaces;
}

let ownNamespace: string | undefined;

function ownUserNamespace(): string {
  ownNamespace ??= readlinkSync("/proc/self/ns/user");
  return ownNamespace;
}
