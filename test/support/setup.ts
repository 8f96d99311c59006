import { afterEach, expect } from "vitest";
import { REFERENCE_DIR, referenceAvailable } from "../conformance/referenceSchema.js";
import { ServerProcess } from "./serverProcess.js";

if (!referenceAvailable) {
  process.stderr.write(
    `\n!!! Codex reference schema not found at ${REFERENCE_DIR}: server messages are NOT checked for conformance. !!!\n\n`,
  );
}

// Every message any test's server sent must have been a valid protocol message.
afterEach(async () => {
  const servers = ServerProcess.running();
  await Promise.all(servers.map((server) => server.stop()));
  for (const server of servers) expect(server.violations, "protocol violations on stdout").toEqual([]);
});
