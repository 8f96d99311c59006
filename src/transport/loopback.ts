import { BlockList, isIP } from "node:net";

// This machine only: 127.0.0.0/8 and ::1. BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1)
// against the IPv4 rule, and every spelling of ::1.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether an IP address (not a name) reaches this machine only: 127.0.0.0/8, ::1, ::ffff:127.x.y.z. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** Resolves a host name or address to every address it stands for, in the resolver's order. */
export type HostResolver = (host: string) => Promise<readonly string[]>;

/** The system resolver (getaddrinfo, as `listen` itself would use: /etc/hosts, then DNS). */
export const systemResolver: HostResolver = async (host) => {
  // Loaded on first use, not at start-up: only a listener resolves host names.
  const { lookup } = await import("node:dns/promises");
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
};

/** Where a listener binds, or why it must not. */
export type ListenAddress = { readonly ok: true; readonly address: string } | { readonly ok: false; readonly message: string };

/**
 * Resolves `host` once, so the listener binds the address that was checked instead of resolving the
 * name again; with `loopbackOnly` (no auth), refuses unless every address it resolves to is loopback.
 */
export async function resolveListenAddress(host: string, loopbackOnly: boolean, resolve: HostResolver = systemResolver): Promise<ListenAddress> {
  let addresses: readonly string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  } catch (error) {
    return { ok: false, message: `cannot resolve the --listen host ${host} (${(error as Error).message}); give an IP address such as 127.0.0.1.` };
  }
  if (addresses.length === 0) return { ok: false, message: `the --listen host ${host} resolves to no address; give an IP address such as 127.0.0.1.` };
  if (loopbackOnly) {
    const outside = addresses.filter((address) => !isLoopbackAddress(address));
    if (outside.length > 0) return { ok: false, message: nonLoopbackMessage(host, outside) };
  }
  return { ok: true, address: addresses[0]! };
}

/** Why a listener without auth must not serve on `address` (the address it was bound to), or null when it may. */
export function boundAddressProblem(host: string, address: string): string | null {
  return isLoopbackAddress(address) ? null : nonLoopbackMessage(host, [address]);
}

function nonLoopbackMessage(host: string, outside: readonly string[]): string {
  const where = isIP(host) !== 0 && outside.length === 1 && outside[0] === host ? host : `${host} (${outside.join(", ")})`;
  return (
    `refusing to start a non-loopback WebSocket listener on ${where} without auth: other machines could connect and run commands. ` +
    `Listen on 127.0.0.1, [::1] or localhost, or require a token with --ws-auth capability-token --ws-token-file PATH.`
  );
}
