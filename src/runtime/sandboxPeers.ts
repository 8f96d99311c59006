/**
 * A sandboxed command that is granted network shares the server's network namespace, so it can
 * reach the server's own TCP listeners on loopback. Every sandbox runs in a user namespace of its
 * own, and its processes keep the server's uid: a connection is refused when its other end is a
 * socket of the server's uid held by a process in another user namespace, or is no longer open
 * (its process may have written a request and exited). The check runs before a byte of the
 * connection is read. A peer on another host, or of another user (never one of our sandboxes),
 * is not affected.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import net from "node:net";

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

/** Whether the process at the other end of `socket` (a TCP connection) is sandboxed or gone; false for non-TCP and remote peers. */
export async function peerIsSandboxed(socket: net.Socket): Promise<boolean> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return false;
  // The peer's socket is the entry whose local end is our remote end, and the other way round.
  const entry = findEntry(remoteAddress, remotePort, localAddress, localPort);
  if (!entry) return false;
  const ownUid = process.getuid?.() ?? -1;
  if (entry.uid !== ownUid) return false;
  if (entry.state !== ESTABLISHED || entry.inode === "0") return true;
  if (heldInAnotherNamespace(entry.inode, ownUid)) return true;
  // Still open and unchanged after the scan: held all along by a process in our own namespace.
  const again = findEntry(remoteAddress, remotePort, localAddress, localPort, [entry.table]);
  return again === null || again.inode !== entry.inode || again.state !== ESTABLISHED;
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
function findEntry(
  localAddress: string,
  localPort: number,
  remoteAddress: string,
  remotePort: number,
  tables: readonly string[] = ["/proc/net/tcp", "/proc/net/tcp6"],
): TcpEntry | null {
  const locals = spellings(localAddress).map((hex) => `${hex}:${hexPort(localPort)}`);
  const remotes = spellings(remoteAddress).map((hex) => `${hex}:${hexPort(remotePort)}`);
  for (const table of tables) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
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

/** Whether a process of `uid` in another user namespace than ours (a sandbox) holds socket `inode`. */
function heldInAnotherNamespace(inode: string, uid: number): boolean {
  const target = `socket:[${inode}]`;
  const own = ownUserNamespace();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      if (statSync(`/proc/${pid}`).uid !== uid || readlinkSync(`/proc/${pid}/ns/user`) === own) continue;
      for (const fd of readdirSync(`/proc/${pid}/fd`)) if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
    } catch {
      // Gone, or not ours to read.
    }
  }
  return false;
}

let ownNamespace: string | undefined;

function ownUserNamespace(): string {
  ownNamespace ??= readlinkSync("/proc/self/ns/user");
  return ownNamespace;
}
