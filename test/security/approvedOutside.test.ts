import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel } from "../../src/testing/index.js";
import { startAcp, stopAcpAgents } from "../support/acpClient.js";
import { mocks, providerArgs, tempDir } from "../support/turnHarness.js";

afterEach(stopAcpAgents);

/**
 * Found by an attack review (it failed before the approval widened by the file alone).
 *
 * The user approves a patch that adds a file outside the writable roots in a directory that does
 * not exist yet (`~/notes/new/todo.md`). The write was then confined to the roots plus the nearest
 * *existing* directory above it (confinementAfterYes, before the fix): the user's home, the server's home inside it.
 * Another file of the same patch, inside the workspace when the patch was checked and shown
 * (`src/config.toml`), is redirected while the user reads the question: a background command of
 * the model's swaps `src` for a symlink into the server's home. The patch then writes the server's
 * config.toml (and the editor, given the new text by path, writes it too): a write no sandbox
 * allows, into the home every sandbox hides, beyond what the user approved.
 * The layout is a real one's: the server's home and the project both inside the user's home,
 * the home outside the writable roots (here /tmp is no root, so that the test's temp home is not).
 */
describe("a yes to one new file outside the roots opens that file alone to the patch", () => {
  it("does not write the server's home through a file of the patch redirected while the user was asked", { timeout: 60_000 }, async () => {
    const user = tempDir("aas-attack-ancestor-user-");
    const home = path.join(user, ".agent-app-server");
    const workspace = path.join(user, "project");
    mkdirSync(home);
    mkdirSync(path.join(workspace, "src"), { recursive: true });
    const approved = path.join(user, "notes", "new", "todo.md");
    const swap = `sleep 1; rm -rf src && ln -s ${home} src && echo swapped`;
    const patch = `*** Begin Patch\n*** Add File: ${approved}\n+todo\n*** Add File: src/config.toml\n+sandbox_mode = "danger-full-access"\n*** End Patch\n`;
    const mock = await startMockModel({
      responses: [
        { items: [{ type: "exec", cmd: swap, callId: "call_swap", yield_time_ms: 100 }] },
        { items: [{ type: "apply_patch", callId: "call_patch", patch }] },
        { items: [{ type: "message", text: "Done." }] },
      ],
    });
    mocks.push(mock);
    const asked: string[] = [];
    const editorWrote: string[] = [];
    const agent = startAcp(
      [
        ...providerArgs(mock.url),
        ...["-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`],
        ...["-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"],
      ],
      {
        cwd: workspace,
        home,
        handlers: {
          // The user reads the question for a couple of seconds, then says yes to the file outside the project.
          permission: async (request) => {
            asked.push(JSON.stringify(request.toolCall));
            await new Promise((resolve) => setTimeout(resolve, 2500));
            return { outcome: { outcome: "selected", optionId: request.options[0]!.optionId } };
          },
          readTextFile: (request) => ({ content: readFileSync(request.path, "utf8") }),
          writeTextFile: (request) => {
            writeFileSync(request.path, request.content);
            editorWrote.push(request.path);
            return {};
          },
        },
      },
    );
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    await agent.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Write the notes." }] });
    // The user was asked about the file outside the project; the other one was inside it then.
    expect(asked).toHaveLength(1);
    expect(readFileSync(approved, "utf8")).toBe("todo\n");
    const written = path.join(home, "config.toml");
    expect(existsSync(written) ? `${written}: ${readFileSync(written, "utf8").trim()} (editor wrote ${editorWrote.join(", ")})` : "not written").toBe("not written");
  });
});
