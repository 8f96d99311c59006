import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServerProcess } from "../support/serverProcess.js";
import { launch, runTurn, startThread, tempDir } from "../support/turnHarness.js";

const random = (length: number) => randomBytes(length).toString("hex").slice(0, length);
const base64 = (text: string) => Buffer.from(text).toString("base64");

/**
 * Base64 text that encodes a run of `secret`, at each byte offset modulo 3 of an encoded
 * payload: any of them in a log means the secret was logged base64-encoded.
 */
function base64Spellings(secret: string): string[] {
  return [0, 1, 2].map((offset) => base64("x".repeat(offset) + secret).slice(offset === 0 ? 0 : 4).slice(0, 16));
}

/** The audit log files' text, one file per connection. */
function auditText(dir: string): string {
  return readdirSync(dir)
    .map((file) => readFileSync(path.join(dir, file), "utf8"))
    .join("");
}

/** The logged messages: `msg` of audit log lines, `message` of the `trace` lines on stderr. */
function loggedMessages(text: string, field: "msg" | "message"): any[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line)[field])
    .filter((message) => message !== undefined);
}

/** A stream's logged chunks put back together: the text of `delta`s, the bytes of `deltaBase64`s. */
function joinedDeltas(messages: any[], method: string): string {
  const chunks = messages.filter((message) => message.method === method).map((message) => message.params);
  return chunks.map((params) => params.delta ?? Buffer.from(params.deltaBase64, "base64").toString("latin1")).join("");
}

describe("no secret reaches a log", () => {
  it("masks secrets in the audit log and the trace log: split across deltas, base64-encoded, provider headers and query, secret env vars; the client gets them whole", async () => {
    const logDir = tempDir("aas-secrets-log-");
    const workspace = tempDir("aas-secrets-ws-");
    const modelKey = `sk-proj-${random(32)}`;
    const password = `pw-${random(24)}`;
    const header = `hdr-${random(20)}`;
    const query = `qp-${random(20)}`;
    const githubToken = `ghp_${random(36)}`;
    const laterHeader = `hdr2-${random(20)}`;
    const laterQuery = `qp2-${random(20)}`;
    // The model streams an API key and the password, each split across two deltas.
    const deltas = [`Your key: ${modelKey.slice(0, 14)}`, `${modelKey.slice(14)}, the password: ${password.slice(0, 9)}`, `${password.slice(9)}.`];
    const { server, mock } = await launch([{ items: [{ type: "message", deltas }] }], {
      sandbox: "danger-full-access",
      cwd: workspace,
      env: { LOG_LEVEL: "trace", MY_PASSWORD: password },
      args: [
        "--session-log",
        logDir,
        // The command below may see MY_PASSWORD: it prints it.
        "-c",
        "shell_environment_policy.ignore_default_excludes=true",
        "-c",
        `model_providers.mock.http_headers={"X-Custom-Auth"="${header}"}`,
        "-c",
        `model_providers.mock.query_params={"api-key"="${query}"}`,
      ],
    });

    const threadId = await startThread(server, { cwd: workspace });
    const { turnId } = await runTurn(server, threadId, "Tell me the secrets.");
    const clientDeltas = server.messages.filter((m) => m.method === "item/agentMessage/delta" && m.params.turnId === turnId).map((m) => m.params.delta);
    expect(clientDeltas).toEqual(deltas);
    expect(mock.requests[0]!.headers["x-custom-auth"]).toBe(header);

    // A command prints the password in two output chunks: the second only once the first arrived.
    const script = 'printf %s "${MY_PASSWORD:0:9}"; read -r _; printf "%s\\n" "${MY_PASSWORD:9}"';
    const exec = server.request("command/exec", { command: ["bash", "-c", script], processId: "leak", streamStdin: true, streamStdoutStderr: true });
    await server.waitFor((m) => m.method === "command/exec/outputDelta" && m.params.processId === "leak", "the first output chunk");
    await server.request("command/exec/write", { processId: "leak", deltaBase64: base64("\n"), closeStdin: true });
    expect((await exec).result.exitCode).toBe(0);
    const output = server.messages.filter((m) => m.method === "command/exec/outputDelta" && m.params.processId === "leak");
    expect(output.length).toBe(2);
    expect(output.map((m) => Buffer.from(m.params.deltaBase64, "base64").toString()).join("")).toBe(`${password}\n`);

    const file = path.join(workspace, "secrets.txt");
    writeFileSync(file, `${password}\n${githubToken}\n`);
    const read = await server.request("fs/readFile", { path: file });
    expect(Buffer.from(read.result.dataBase64, "base64").toString()).toBe(`${password}\n${githubToken}\n`);

    // A provider written while the server runs: the write itself and what config/read shows after it.
    const other = { base_url: mock.url, http_headers: { "X-Custom-Auth": laterHeader }, query_params: { "api-key": laterQuery } };
    const write = await server.request("config/value/write", { keyPath: "model_providers.other", value: other, mergeStrategy: "replace" });
    expect(write.error).toBeUndefined();
    const config = await server.request("config/read", { includeLayers: true });
    for (const secret of [header, query, laterHeader, laterQuery]) expect(JSON.stringify(config.result)).toContain(secret);

    await server.closeStdin();
    const audit = auditText(logDir);
    const trace = server.stderr;
    const auditMessages = loggedMessages(audit, "msg");
    const traceMessages = loggedMessages(trace, "message");
    // Both logs hold the whole conversation: the deltas, the command's output, the file, the config.
    for (const messages of [auditMessages, traceMessages]) {
      expect(messages.filter((m) => m.method === "item/agentMessage/delta")).toHaveLength(deltas.length);
      expect(messages.filter((m) => m.method === "command/exec/outputDelta")).toHaveLength(2);
      expect(messages.some((m) => m.result?.dataBase64)).toBe(true);
      expect(messages.some((m) => m.result?.config?.model_providers?.other)).toBe(true);
    }

    const secrets = [modelKey, password, header, query, githubToken, laterHeader, laterQuery];
    const pieces = [modelKey.slice(0, 14), modelKey.slice(14), password.slice(0, 9), password.slice(9)];
    const forbidden = [...secrets, ...pieces, ...secrets.flatMap(base64Spellings)];
    for (const [name, log, messages] of [["audit log", audit, auditMessages], ["trace log", trace, traceMessages]] as const) {
      for (const text of forbidden) expect(log, `${name} holds ${text}`).not.toContain(text);
      const streamed = joinedDeltas(messages, "item/agentMessage/delta") + joinedDeltas(messages, "command/exec/outputDelta");
      for (const secret of secrets) expect(streamed, `${name}'s deltas put together hold ${secret}`).not.toContain(secret);
      expect(log).toContain("[REDACTED]");
    }
  });
});

describe("commands do not see secret-named variables", () => {
  const env = { MY_PASSWORD: "password-value", FOO_CREDENTIAL: "credential-value", GH_PAT: "pat-value", SAFE_NAME: "plain-value" };

  /** The variables of `env` a command sees under `settings` (`-c` flags). */
  async function seen(settings: string[]): Promise<string[]> {
    const server = ServerProcess.start({ env, args: ["app-server", "-c", `sandbox_mode="danger-full-access"`, ...settings.flatMap((setting) => ["-c", setting])] });
    await server.initialize();
    const response = await server.request("command/exec", { command: ["env"] });
    expect(response.error).toBeUndefined();
    const names = (response.result.stdout as string).split("\n").map((line) => line.split("=")[0]!);
    return Object.keys(env).filter((name) => names.includes(name));
  }

  it("drops *PASSWORD*, *CREDENTIAL* and *_PAT by default; ignore_default_excludes and include_only decide as before", async () => {
    const [byDefault, ignored, only, onlyAlone] = await Promise.all([
      seen([]),
      seen(["shell_environment_policy.ignore_default_excludes=true"]),
      seen(["shell_environment_policy.ignore_default_excludes=true", `shell_environment_policy.include_only=["MY_PASSWORD", "PATH"]`]),
      seen([`shell_environment_policy.include_only=["MY_PASSWORD", "SAFE_*", "PATH"]`]),
    ]);
    expect(byDefault).toEqual(["SAFE_NAME"]);
    expect(ignored).toEqual(["MY_PASSWORD", "FOO_CREDENTIAL", "GH_PAT", "SAFE_NAME"]);
    expect(only).toEqual(["MY_PASSWORD"]);
    // As Codex: include_only picks among what the default excludes left.
    expect(onlyAlone).toEqual(["SAFE_NAME"]);
  });
});
