import { once } from "node:events";
import net from "node:net";

/** A port on 127.0.0.1 nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
