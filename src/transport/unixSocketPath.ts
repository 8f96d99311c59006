/**
 * Readies the path of `--listen unix://PATH`: its directory exists (0700 when we create it), and a
 * socket file left there is replaced only when nothing answers on it; a live server, or a file
 * that is not a socket, is never touched.
 */
import { lstat, mkdir, unlink } from "node:fs/promises";
import net from "node:net";
import path from "node:path";

/** Linux's limit on a socket path (sun_path holds 108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Where `--listen unix://` listens: as Codex, a control socket in a private directory of the home. */
export function defaultSocketPath(home: string): string {
  return path.join(home, "app-server-control", "app-server-control.sock");
}

/** Makes `socketPath` ready to bind, or says why it cannot be. */
export async function prepareSocketPath(socketPath: string): Promise<{ ok: true } | { ok: false; message: string }> {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    return { ok: false, message: `--listen unix://${socketPath}: the path is longer than ${MAX_SOCKET_PATH_BYTES} bytes; choose a shorter one` };
  }
  await mkdir(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  const existing = await lstat(socketPath).catch(() => null);
  if (!existing) return { ok: true };
  if (!existing.isSocket()) return { ok: false, message: `--listen unix://${socketPath}: a file that is not a socket is in the way` };
  if (await answers(socketPath)) return { ok: false, message: `--listen unix://${socketPath}: another server is listening there` };
  await unlink(socketPath);
  return { ok: true };
}

/** Whether a server accepts connections on the socket (a stale one refuses them). */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}
