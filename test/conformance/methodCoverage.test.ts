import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CODEX_CLIENT_METHODS, OUT_OF_SCOPE_METHODS } from "../../src/protocol/codexMethods.js";
import { clientRequests } from "../../src/protocol/methods.js";
import { ServerProcess } from "../support/serverProcess.js";
import { REFERENCE_DIR, referenceAvailable } from "./referenceSchema.js";

/** Every client method of the Codex reference. */
function referenceMethods(): string[] {
  const schema = JSON.parse(readFileSync(path.join(REFERENCE_DIR, "ClientRequest.json"), "utf8")) as { oneOf: Array<{ properties: { method: { enum: string[] } } }> };
  return schema.oneOf.map((branch) => branch.properties.method.enum[0]!);
}

/** The rows of the "Codex method coverage" table of docs/protocol-coverage.md: method → status. */
function coverageRows(): Map<string, string> {
  const readme = readFileSync(path.resolve("docs/protocol-coverage.md"), "utf8");
  const section = readme.split("## Codex method coverage")[1]!.split("\n## ")[0]!;
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)) rows.set(match[1]!, match[2]!);
  return rows;
}

/** What the code says of a method. */
function statusInCode(method: string): string {
  if (Object.hasOwn(clientRequests, method)) return "served";
  const reason = OUT_OF_SCOPE_METHODS.get(method);
  return reason === undefined ? "not yet" : `out of scope: ${reason}`;
}

describe.runIf(referenceAvailable)("Codex method coverage", () => {
  it("has a row in docs/protocol-coverage.md for every Codex method, matching the code: served, out of scope with its reason, or not yet", () => {
    const methods = referenceMethods();
    const rows = coverageRows();
    expect([...rows.keys()].sort()).toEqual([...methods].sort());
    for (const method of methods) expect(rows.get(method), method).toBe(statusInCode(method));
    for (const method of OUT_OF_SCOPE_METHODS.keys()) {
      expect(Object.hasOwn(clientRequests, method), `${method} is served and out of scope`).toBe(false);
      expect(methods, `${method} is not a Codex method`).toContain(method);
    }
    for (const method of methods) expect(CODEX_CLIENT_METHODS.has(method), method).toBe(true);
  });

  it("answers every out-of-scope method with -32601 and its reason", async () => {
    const server = ServerProcess.start();
    await server.initialize();
    for (const [method, reason] of OUT_OF_SCOPE_METHODS) {
      const response = await server.request(method, {});
      expect(response.error, method).toEqual({ code: -32601, message: `${method} is not served by agent-app-server: ${reason}`, data: { method, reason } });
    }
    await server.closeStdin();
  });
});
