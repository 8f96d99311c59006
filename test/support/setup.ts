import { afterEach, expect } from "vitest";
import { runAfterEachTest } from "./afterEachTest.js";
import { REFERENCE_DIR, referenceAvailable } from "../conformance/referenceSchema.js";
import { ServerProcess } from "./serverProcess.js";

// The global setup (referenceSchemaSetup.ts) found or made the schema; without it the suite does not run.
if (!referenceAvailable) throw new Error(`Codex reference schema not found at ${REFERENCE_DIR}`);

// The shared modules' clean-ups (mocks, temp dirs, turn invariants), then: every message any
// test's server sent must have been a valid protocol message.
afterEach(async () => {
  await runAfterEachTest();
  const servers = ServerProcess.running();
  await Promise.all(servers.map((server) => server.stop()));
  for (const server of servers) expect(server.violations, "protocol violations on stdout").toEqual([]);
});
