import { describe, expect, it } from "vitest";
import { childEnvironment } from "../../src/agent/exec/childEnvironment.js";
import type { Config } from "../../src/config/schema.js";
import { LogRedactor } from "../../src/server/logRedactor.js";
import { logSecrets } from "../../src/server/logSecrets.js";
import { knownSecrets, redactSecrets } from "../../src/server/secretRedaction.js";

const PASSWORD = "hunter2-correct-horse-battery";
const API_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx";
const b64 = (text: string) => Buffer.from(text).toString("base64");
const unb64 = (payload: string) => Buffer.from(payload, "base64").toString("utf8");

/** Feeds `pieces` as consecutive deltas of one stream and returns what the log gets of each. */
function loggedDeltas(pieces: readonly string[], secrets = knownSecrets([PASSWORD])): string[] {
  const redactor = new LogRedactor(() => secrets);
  return pieces.map((delta) => {
    const safe = redactor.redact({ method: "item/agentMessage/delta", params: { threadId: "t", turnId: "u", itemId: "i", delta } }) as any;
    return safe.params.delta;
  });
}

describe("log redaction", () => {
  it("masks a known secret and a credential-shaped key split across two deltas: neither piece reaches the log", () => {
    for (const secret of [PASSWORD, API_KEY]) {
      const pieces = [`my key is ${secret.slice(0, 12)}`, `${secret.slice(12)} - keep it safe`];
      const logged = loggedDeltas(pieces);
      expect(logged.join("")).not.toContain(secret);
      expect(logged[0]).not.toContain(secret.slice(0, 12));
      expect(logged[1]).not.toContain(secret.slice(12));
      expect(logged[0]).toMatch(/^my key is \[REDACTED\]$/);
      expect(logged[1]).toBe("[REDACTED] - keep it safe");
    }
  });

  it("leaves ordinary streamed text as it was, however it is split", () => {
    const text = "Passwords are secrets; the skies are blue. Bearer of news: none.";
    const pieces = [text.slice(0, 5), text.slice(5, 17), text.slice(17, 40), text.slice(40)];
    expect(loggedDeltas(pieces).join("")).toBe(text);
  });

  it("masks secrets inside base64 payloads, streamed or whole, and their base64 spellings in text", () => {
    const redactor = new LogRedactor(() => knownSecrets([PASSWORD]));
    const output = `pw=${PASSWORD}\n`;
    const chunks = [output.slice(0, 10), output.slice(10)].map((chunk) => {
      const params = { processId: "p", stream: "stdout", deltaBase64: b64(chunk), capReached: false };
      return (redactor.redact({ method: "command/exec/outputDelta", params }) as any).params.deltaBase64 as string;
    });
    expect(chunks.map(unb64).join("")).toBe("pw=[REDACTED][REDACTED]\n");
    const file = redactor.redact({ id: 3, result: { dataBase64: b64(`${PASSWORD}\nghp_${"a".repeat(36)}\n`) } }) as any;
    expect(unb64(file.result.dataBase64)).toBe("[REDACTED]\n[REDACTED]\n");
    for (const prefix of ["", "x", "xy"]) {
      const encoded = b64(`${prefix}${PASSWORD}`);
      expect((redactor.redact({ id: 4, result: { stdout: encoded } }) as any).result.stdout).toContain("[REDACTED]");
    }
  });

  it("keeps token counts (a number under a *Tokens key) and still masks a token's value", () => {
    const usage = { tokenUsage: { last: { inputTokens: 10, totalTokens: 15 } }, total_tokens: 3, token: 123456, accessToken: "abc" };
    expect(redactSecrets(usage, knownSecrets([]))).toEqual({ tokenUsage: { last: { inputTokens: 10, totalTokens: 15 } }, total_tokens: 3, token: "[REDACTED]", accessToken: "[REDACTED]" });
  });

  it("masks every value of a provider's http_headers and query_params, in config tables and config writes", () => {
    const secrets = knownSecrets([]);
    const config = { model_providers: { gw: { base_url: "http://gw", http_headers: { "X-Custom-Auth": "abc" }, query_params: { v: "1" } } } };
    expect(redactSecrets(config, secrets)).toEqual({
      model_providers: { gw: { base_url: "http://gw", http_headers: { "X-Custom-Auth": "[REDACTED]" }, query_params: { v: "[REDACTED]" } } },
    });
    const write = { keyPath: "model_providers.gw.http_headers", value: { "X-Custom-Auth": "abc" }, mergeStrategy: "upsert" };
    expect(redactSecrets(write, secrets)).toEqual({ ...write, value: { "X-Custom-Auth": "[REDACTED]" } });
    expect(redactSecrets({ "model_providers.gw.query_params": { key: "abc" } }, secrets)).toEqual({ "model_providers.gw.query_params": { key: "[REDACTED]" } });
  });

  it("knows the secrets of the environment and of the config as it changes", () => {
    const env = { MY_PASSWORD: PASSWORD, GH_PAT: "ghpat-value-1", FOO_CREDENTIAL: "cred-value-1", GATEWAY: "gateway-key-1", ORG: "org-header-1", HOME: "/home/someone" };
    const store = { current: {} as Config, layers: [] as { source: { type: "sessionFlags" }; values: Record<string, unknown> }[] };
    const secrets = logSecrets(env, store);
    expect(secrets().text).toEqual(expect.arrayContaining([PASSWORD, "ghpat-value-1", "cred-value-1"]));
    expect(secrets().text).not.toContain("gateway-key-1");
    const provider = { base_url: "http://gw", env_key: "GATEWAY", env_http_headers: { "X-Org": "ORG" }, http_headers: { "X-Custom-Auth": "header-secret" }, query_params: { "api-key": "query-secret" } };
    store.current = { model_providers: { gw: provider } } as Config;
    expect(secrets().text).toEqual(expect.arrayContaining(["gateway-key-1", "org-header-1", "header-secret", "query-secret"]));
    expect(secrets().text).not.toContain("/home/someone");
  });
});

describe("command environment", () => {
  const env = { PATH: "/bin", MY_PASSWORD: "a", DB_PASSWD: "b", FOO_CREDENTIAL: "c", GH_PAT: "d", SSH_PRIVATE_KEY: "e", API_KEY: "f", PATCH: "g" };

  it("drops secret-named variables by default; ignore_default_excludes keeps them; exclude and include_only still apply", () => {
    expect(childEnvironment(undefined, env)).toEqual({ PATH: "/bin", PATCH: "g" });
    expect(childEnvironment({ ignore_default_excludes: true }, env)).toEqual(env);
    expect(childEnvironment({ ignore_default_excludes: true, include_only: ["my_*", "*_pat"] }, env)).toEqual({ MY_PASSWORD: "a", GH_PAT: "d" });
    expect(childEnvironment({ ignore_default_excludes: true, exclude: ["GH_*"] }, env)).not.toHaveProperty("GH_PAT");
    // As Codex: include_only selects among what the excludes left.
    expect(childEnvironment({ include_only: ["MY_PASSWORD", "PATH"] }, env)).toEqual({ PATH: "/bin" });
  });
});
