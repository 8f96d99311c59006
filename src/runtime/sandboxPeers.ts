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
import net from "node:net";
import os from "node:os";
import { freshSocketHolders, freshTcpTables, type TcpEntry, type TcpTables } from "./hostSockets.js";

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
  const find = (table: TcpTables) => findEntry(table, remoteAddress, remotePort, localAddress, localPort);
  const entry = find(await freshTcpTables());
  if (!entry) return isLocalAddress(remoteAddress);
  if (entry.state !== ESTABLISHED || entry.inode === "0") return true;
  if (entry.uid !== (process.getuid?.() ?? -1)) return false;
  const holders = (await freshSocketHolders())?.get(entry.inode);
  const own = ownUserNamespace();
  if (!holders || holders.size === 0 || [...holders].some((namespace) => namespace !== own)) return true;
  // Still open and unchanged after the scan: held all along by processes in our own namespace.
  const again = find(await freshTcpTables());
  return again === undefined || again.inode !== entry.inode || again.state !== ESTABLISHED;
}

/** Whether `address` is one of this host's: loopback, or an address of one of its interfaces. */
function isLocalAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, "");
  if (plain === "::1" || plain.startsWith("127.")) return true;
  return Object.values(os.networkInterfaces()).some((list) => list?.some((entry) => entry.address.replace(/^::ffff:/i, "") === plain) ?? false);
}

/** The entry for a connection from `local` to `remote`, whichever family's spelling the tables use. */
function findEntry(table: TcpTables, localAddress: string, localPort: number, remoteAddress: string, remotePort: number): TcpEntry | undefined {
  for (const local of spellings(localAddress)) {
    for (const remote of spellings(remoteAddress)) {
      const entry = table.get(`${local}:${hexPort(localPort)} ${remote}:${hexPort(remotePort)}`);
      if (entry) return entry;
    }
  }
  return undefined;
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

let ownNamespace: string | undefined;

function ownUserNamespace(): string {
  ownNamespace ??= readlinkSync("/proc/self/ns/user");
  return ownNamespace;
}
