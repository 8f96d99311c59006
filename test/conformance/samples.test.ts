import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { CommandExecutionRequestApprovalResponse, FileChangeRequestApprovalResponse } from "../../src/protocol/approvals.js";
import { ThreadItem } from "../../src/protocol/items.js";
import { clientRequests } from "../../src/protocol/methods.js";
import { AskForApproval, AskForApprovalInput, SandboxMode, SandboxPolicy } from "../../src/protocol/policy.js";
import { Thread } from "../../src/protocol/thread.js";
import { Turn } from "../../src/protocol/turn.js";
import { UserInput } from "../../src/protocol/userInput.js";
import { checkAgainst, checkDefinition, REFERENCE_DIR, referenceAvailable, requestParamsFile } from "./referenceSchema.js";

if (!referenceAvailable) {
  console.warn(`SKIPPING conformance samples: no Codex reference schema at ${REFERENCE_DIR}`);
}

const turn = { id: "t1", items: [], status: "inProgress" };
const thread = {
  id: "019a0000-0000-7000-8000-000000000001",
  sessionId: "019a0000-0000-7000-8000-000000000001",
  preview: "",
  ephemeral: false,
  modelProvider: "openai",
  createdAt: 1,
  updatedAt: 2,
  status: { type: "idle" },
  cwd: "/tmp/w",
  cliVersion: "0.1.0",
  source: "vscode",
  projectId: null,
  turns: [turn],
};

/** Values the reference accepts, per type; each must be accepted by our zod schema too. */
const definitionSamples: Array<[string, z.ZodType, unknown[]]> = [
  [
    "UserInput",
    UserInput,
    [
      { type: "text", text: "hi" },
      { type: "text", text: "hi", text_elements: [{ byteRange: { start: 0, end: 2 }, placeholder: null }] },
      { type: "image", url: "data:image/png;base64,AAAA", detail: "high" },
      { type: "image", fileId: "file_1" },
      { type: "localImage", path: "/tmp/a.png" },
      { type: "localAudio", path: "/tmp/a.wav" },
      { type: "skill", name: "s", path: "/tmp/SKILL.md" },
      { type: "mention", name: "m", path: "app://x" },
    ],
  ],
  ["AskForApproval", AskForApproval, ["untrusted", "on-request", "never", { granular: { sandbox_approval: true, rules: false, mcp_elicitations: false } }]],
  ["SandboxMode", SandboxMode, ["read-only", "workspace-write", "danger-full-access"]],
  [
    "SandboxPolicy",
    SandboxPolicy,
    [
      { type: "dangerFullAccess" },
      { type: "readOnly", networkAccess: false },
      { type: "externalSandbox", networkAccess: "enabled" },
      { type: "workspaceWrite", writableRoots: ["/tmp"], networkAccess: true, excludeSlashTmp: false },
    ],
  ],
  [
    "ThreadItem",
    ThreadItem,
    [
      { type: "userMessage", id: "u", content: [{ type: "text", text: "hi" }] },
      { type: "agentMessage", id: "msg_1", text: "hello", phase: "final_answer" },
      { type: "reasoning", id: "rs_1", summary: ["a"], content: [] },
      { type: "plan", id: "p", text: "1. do" },
      {
        type: "commandExecution",
        id: "call_1",
        command: "/bin/bash -lc ls",
        cwd: "/tmp",
        status: "completed",
        commandActions: [{ type: "listFiles", command: "ls", path: null }],
        aggregatedOutput: "a\n",
        exitCode: 0,
        durationMs: 5,
        source: "agent",
      },
      {
        type: "fileChange",
        id: "call_2",
        status: "declined",
        changes: [{ path: "/tmp/a", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-a\n+b\n" }],
      },
      { type: "mcpToolCall", id: "m", server: "s", tool: "t", status: "completed", arguments: {}, result: { content: [] } },
      { type: "dynamicToolCall", id: "d", tool: "t", arguments: {}, status: "failed", success: false },
      { type: "webSearch", id: "w", query: "q", action: { type: "search", query: "q" } },
      { type: "imageView", id: "i", path: "/tmp/a.png" },
      { type: "enteredReviewMode", id: "r", review: "changes" },
      { type: "exitedReviewMode", id: "r", review: "looks good" },
      { type: "contextCompaction", id: "c" },
    ],
  ],
  [
    "Turn",
    Turn,
    [
      turn,
      {
        id: "t2",
        items: [],
        status: "failed",
        error: { message: "boom", codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } } },
        startedAt: 1,
        completedAt: 2,
        durationMs: 1000,
        itemsView: "notLoaded",
      },
    ],
  ],
  ["Thread", Thread, [thread, { ...thread, name: "n", gitInfo: { sha: null, branch: "main" }, path: "/x.jsonl" }]],
];

/** Params samples per implemented client request. */
const paramsSamples: Record<keyof typeof clientRequests, unknown[]> = {
  initialize: [
    { clientInfo: { name: "c", version: "1" } },
    {
      clientInfo: { name: "codex-tui", title: null, version: "0.169.0" },
      capabilities: { requiredHumanApproval: true, experimentalApi: true, requestAttestation: false, optOutNotificationMethods: null },
    },
    { clientInfo: { name: "c", version: "1" }, capabilities: null },
  ],
  "thread/start": [
    {},
    {
      model: "gpt-5.5",
      modelProvider: "mock",
      cwd: "/tmp/w",
      approvalPolicy: "on-request",
      sandbox: "workspace-write",
      config: { model_reasoning_effort: "high" },
      baseInstructions: "b",
      developerInstructions: "d",
      ephemeral: true,
      personality: "pragmatic",
      sessionStartSource: "startup",
    },
  ],
  "thread/resume": [{ threadId: "t" }, { threadId: "t", model: "m", sandbox: "read-only", excludeTurns: true }],
  "thread/fork": [{ threadId: "t" }, { threadId: "t", ephemeral: true, lastTurnId: "u", excludeTurns: false }],
  "thread/list": [
    {},
    {
      cursor: null,
      limit: 10,
      sortKey: "updated_at",
      sortDirection: "asc",
      modelProviders: ["mock"],
      sourceKinds: ["vscode", "cli"],
      archived: false,
      cwd: ["/a", "/b"],
      searchTerm: "fix",
    },
    { cwd: "/a" },
  ],
  "thread/read": [{ threadId: "t" }, { threadId: "t", includeTurns: true }],
  "thread/turns/list": [{ threadId: "t" }, { threadId: "t", cursor: "c", limit: 5, sortDirection: "asc", itemsView: "full" }],
  "thread/archive": [{ threadId: "t" }],
  "thread/unarchive": [{ threadId: "t" }],
  "thread/name/set": [{ threadId: "t", name: "n" }],
  "thread/metadata/update": [{ threadId: "t" }, { threadId: "t", gitInfo: { branch: "main", sha: null } }],
  "thread/loaded/list": [{}, { cursor: "c", limit: 2 }],
  "thread/unsubscribe": [{ threadId: "t" }],
  "turn/start": [
    { threadId: "t", input: [{ type: "text", text: "hi" }] },
    {
      threadId: "t",
      input: [
        { type: "text", text: "look", text_elements: [] },
        { type: "image", url: "data:image/png;base64,AAAA" },
        { type: "localImage", path: "/tmp/a.png", detail: "high" },
      ],
      cwd: "/tmp/w",
      approvalPolicy: "never",
      sandboxPolicy: { type: "workspaceWrite", writableRoots: ["/tmp/w"], networkAccess: false },
      model: "m",
      effort: "high",
      summary: "concise",
      outputSchema: { type: "object", properties: { answer: { type: "string" } } },
      clientUserMessageId: "c1",
    },
  ],
  "turn/steer": [{ threadId: "t", expectedTurnId: "u", input: [{ type: "text", text: "also" }] }],
  "turn/interrupt": [{ threadId: "t", turnId: "u" }],
  "command/exec": [
    { command: ["ls", "-la"] },
    {
      command: ["sh", "-c", "cat"],
      processId: "p1",
      streamStdin: true,
      streamStdoutStderr: true,
      outputBytesCap: 1024,
      timeoutMs: 5000,
      cwd: "/tmp/w",
      env: { FOO: "bar", HOME: null },
      sandboxPolicy: { type: "workspaceWrite", writableRoots: ["/tmp/x"], networkAccess: false },
    },
    { command: ["true"], processId: null, disableOutputCap: true, disableTimeout: true, env: null, size: null, sandboxPolicy: null },
    { command: ["bash"], processId: "t1", tty: true, size: { rows: 24, cols: 80 } },
  ],
  "command/exec/write": [{ processId: "p1", deltaBase64: "aGk=" }, { processId: "p1", closeStdin: true }, { processId: "p1", deltaBase64: "", closeStdin: true }],
  "command/exec/terminate": [{ processId: "p1" }],
  "command/exec/resize": [{ processId: "p", size: { rows: 24, cols: 80 } }],
  "thread/readState/update": [{ threadId: "t", operation: { type: "read" }, expectedRevision: "3" }],
  "thread/compact/start": [{ threadId: "t" }],
  "thread/items/list": [
    { threadId: "t" },
    { threadId: "t", turnId: "u", cursor: { type: "item", itemId: "i" }, limit: 10, sortDirection: "desc" },
    { threadId: "t", cursor: "c", sortDirection: "asc", deferOutput: null },
  ],
  "thread/delete": [{ threadId: "t" }],
  "thread/section/move": [{ threadId: "t", sectionId: "s" }, { threadId: "t", sectionId: null, beforeThreadId: null }],
  "threadSection/list": [{}, { cursor: null, limit: 5 }],
  "threadSection/create": [{ name: "Work" }, { name: "Work", appearance: { color: "blue", icon: null } }],
  "threadSection/update": [{ sectionId: "s", name: "Job" }, { sectionId: "s", name: "Job", appearance: null }],
  "threadSection/delete": [{ sectionId: "s" }],
  "thread/revert": [{ threadId: "t", beforeTurnId: "u" }],
  "mcpServer/oauth/login": [{ name: "docs" }, { name: "docs", scopes: ["a"], timeoutSecs: 60, threadId: null, clientRegistration: "dcr" }],
  "externalAgentConfig/detect": [{}, { includeHome: true, cwds: ["/w"], maxSessionAgeDays: 30, maxSessions: 5, migrationSource: null, source: null }],
  "externalAgentConfig/import": [
    { migrationItems: [] },
    { migrationItems: [{ itemType: "SKILLS", description: "d", cwd: null, details: { skills: [{ name: "a" }] } }], providerId: "p", migrationSource: null, source: "x" },
  ],
  "externalAgentConfig/import/recordHistory": [{ providerId: "p", itemTypeResults: [{ itemType: "CONFIG", successes: [{ itemType: "CONFIG", source: "a", target: "b" }], failures: [] }] }],
  "thread/approveGuardianDeniedAction": [{ threadId: "t", event: { id: "r", status: "denied", action: { type: "command", command: "ls", cwd: "/", source: "shell" } } }],
  "thread/attachment/add": [{ threadId: "t", attachmentType: "ticket", identityKey: "JIRA-1", payload: { title: "x" } }, { threadId: "t", attachmentType: "a", identityKey: "b", payload: null }],
  "thread/attachment/list": [{ threadId: "t" }, { threadId: "t", cursor: null, limit: 10 }],
  "thread/attachment/remove": [{ threadId: "t", attachmentType: "ticket", identityKey: "JIRA-1" }],
  "thread/attachmentOwner/list": [{ attachmentType: "ticket", identityKey: "JIRA-1" }, { attachmentType: "a", identityKey: "b", archived: false, cursor: null, limit: 5 }],
  "thread/inject_items": [{ threadId: "t", items: [{ type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }] }],
  "skills/config/write": [{ path: "/home/me/.agent-app-server/skills/deploy/SKILL.md", enabled: false }, { name: "deploy", enabled: true }],
  "skills/extraRoots/set": [{ extraRoots: ["/opt/skills"] }, { extraRoots: [] }],
  "feedback/save": [{ classification: "bug", savePath: "/tmp/f.zip" }, { classification: "bug", savePath: "/tmp/f.zip", includeLogs: true, extraLogFiles: ["/tmp/a.log"], threadId: "t", reason: null, tags: { a: "b" } }],
  "permissionProfile/list": [{}, { cursor: null, cwd: "/tmp/w", limit: 5 }],
  "thread/shellCommand": [{ threadId: "t", command: "ls | wc -l" }, { threadId: "t", command: "make", timeoutMs: 60000 }],
  "thread/backgroundTerminals/list": [{ threadId: "t" }, { threadId: "t", cursor: null, limit: 10 }],
  "thread/backgroundTerminals/terminate": [{ threadId: "t", processId: "1" }],
  "thread/backgroundTerminals/clean": [{ threadId: "t" }],
  "thread/goal/set": [{ threadId: "t", objective: "Ship it", tokenBudget: 10000 }, { threadId: "t", status: "paused", origin: "user" }],
  "thread/goal/get": [{ threadId: "t" }],
  "thread/goal/clear": [{ threadId: "t" }, { threadId: "t", origin: "automatic" }],
  "review/start": [
    { threadId: "t", target: { type: "uncommittedChanges" } },
    { threadId: "t", target: { type: "baseBranch", branch: "main" }, delivery: "inline" },
    { threadId: "t", target: { type: "commit", sha: "abc123", title: null } },
    { threadId: "t", target: { type: "custom", instructions: "Check the error handling." } },
  ],
  "account/read": [{}, { refreshToken: false }],
  "account/bedrock/checkGovCloudRequirements": [{}],
  "model/list": [{}, { modelProvider: null, cursor: null, limit: null, includeHidden: true }],
  "config/read": [{}, { includeLayers: true, cwd: "." }],
  "configRequirements/read": [{}],
  "config/value/write": [
    { keyPath: "model", value: "gpt-5.5", mergeStrategy: "replace" },
    { keyPath: 'projects."/tmp/w".trust_level', value: "trusted", mergeStrategy: "upsert", filePath: null, expectedVersion: "sha256:1" },
  ],
  "config/batchWrite": [
    { edits: [] },
    { edits: [{ keyPath: "model", value: "m", mergeStrategy: "replace" }], filePath: null, expectedVersion: null, reloadUserConfig: true },
  ],
  "hooks/list": [{ cwds: ["/tmp"], threadId: null }],
  "skills/list": [{ cwds: ["/tmp"], forceReload: true }],
  "plugin/installed": [{ cwds: ["/tmp"], installSuggestionPluginNames: null }],
  "collaborationMode/list": [{}],
  "fs/readFile": [{ path: "/tmp/w/a.txt" }],
  "fs/writeFile": [{ path: "/tmp/w/a.txt", dataBase64: "aGk=" }, { path: "/tmp/w/empty", dataBase64: "" }],
  "fs/createDirectory": [{ path: "/tmp/w/d" }, { path: "/tmp/w/d", recursive: null }, { path: "/tmp/w/d", recursive: false }],
  "fs/getMetadata": [{ path: "/tmp/w" }],
  "fs/readDirectory": [{ path: "/tmp/w" }],
  "fs/remove": [{ path: "/tmp/w/d" }, { path: "/tmp/w/d", recursive: false, force: null }],
  "fs/copy": [{ sourcePath: "/tmp/w/a", destinationPath: "/tmp/w/b" }, { sourcePath: "/tmp/w/a", destinationPath: "/tmp/w/b", recursive: true }],
  "fs/watch": [{ path: "/tmp/w", watchId: "w1" }],
  "fs/unwatch": [{ watchId: "w1" }],
  fuzzyFileSearch: [
    { query: "main", roots: ["/tmp/w"] },
    { query: "", roots: [], cancellationToken: null },
    { query: "m", roots: ["/tmp/w", "/tmp/x"], cancellationToken: "c1" },
  ],
  "mcpServer/tool/call": [{ threadId: "t", server: "calc", tool: "add", arguments: { a: 1, b: 2 } }, { threadId: "t", server: "calc", tool: "ping" }],
  "mcpServer/resource/read": [{ server: "calc", uri: "memo://readme" }, { server: "calc", uri: "memo://readme", threadId: "t" }],
  "config/mcpServer/reload": [null],
  "externalAgentConfig/import/readHistories": [null],
  "modelProvider/list": [{}],
  "account/login/start": [{ type: "apiKey", apiKey: "sk-x" }, { type: "chatgpt" }, { type: "chatgptDeviceCode" }],
  "account/login/cancel": [{ loginId: "l1" }],
  "account/logout": [null],
  "account/rateLimits/read": [null],
  "modelProvider/capabilities/read": [{}],
  "modelProvider/config/write": [
    { settings: { type: "customGateway", name: "GW", baseUrl: "http://127.0.0.1:1/v1", envKey: "K" } },
    { settings: { type: "customGateway", providerId: "gw", envKey: null } },
  ],
  "experimentalFeature/list": [{}, { cursor: null, limit: 10, threadId: null }],
  "experimentalFeature/enablement/set": [{ enablement: {} }, { enablement: { shell_snapshot: false } }],
  "mcpServerStatus/list": [
    {},
    { cursor: null, limit: null, detail: null, serverName: null, threadId: null },
    { cursor: "c", limit: 10, detail: "toolsAndAuthOnly", serverName: "calc", threadId: "t" },
  ],
};

/** Codex methods that only its experimental API has, so the stable reference cannot check their params. */
const EXPERIMENTAL = new Set([
  "thread/readState/update",
  "account/bedrock/checkGovCloudRequirements",
  "collaborationMode/list",
  "configRequirements/read",
  "thread/backgroundTerminals/list",
  "thread/backgroundTerminals/terminate",
  "thread/backgroundTerminals/clean",
]);

/** Methods whose params the reference declares `null` (no params type, so no file to check against). */
const NULL_PARAMS = new Set(["config/mcpServer/reload", "account/logout", "account/rateLimits/read", "externalAgentConfig/import/readHistories"]);

describe.skipIf(!referenceAvailable)("zod schemas accept what the Codex reference accepts", () => {
  it.each(definitionSamples)("%s", (definition, schema, samples) => {
    for (const sample of samples) {
      expect(checkDefinition(definition, sample), JSON.stringify(sample)).toEqual([]);
      expect(schema.safeParse(sample).error?.issues ?? [], JSON.stringify(sample)).toEqual([]);
    }
  });

  it.each(Object.entries(paramsSamples))("params of %s", (method, samples) => {
    const file = requestParamsFile(method);
    expect(file !== undefined || EXPERIMENTAL.has(method) || NULL_PARAMS.has(method), `reference has ${method}`).toBe(true);
    for (const sample of samples) {
      if (file) expect(checkAgainst(file, sample)).toEqual([]);
      expect(clientRequests[method as keyof typeof clientRequests].params.safeParse(sample).success).toBe(true);
    }
  });

  it("approval answers of every kind", () => {
    const commandDecisions = [
      "accept",
      "acceptForSession",
      "decline",
      "cancel",
      { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["git", "status"] } },
      { applyNetworkPolicyAmendment: { network_policy_amendment: { host: "example.com", action: "allow" } } },
    ];
    for (const decision of commandDecisions) {
      expect(checkAgainst("CommandExecutionRequestApprovalResponse.json", { decision })).toEqual([]);
      expect(CommandExecutionRequestApprovalResponse.safeParse({ decision }).success).toBe(true);
    }
    for (const decision of ["accept", "acceptForSession", "decline", "cancel"]) {
      expect(checkAgainst("FileChangeRequestApprovalResponse.json", { decision })).toEqual([]);
      expect(FileChangeRequestApprovalResponse.safeParse({ decision }).success).toBe(true);
    }
  });

  it("rejects what the reference rejects, for the enums clients get wrong", () => {
    for (const bad of ["on-failure", "unlessTrusted"]) {
      expect(checkDefinition("AskForApproval", bad)).not.toEqual([]);
      expect(AskForApproval.safeParse(bad).success).toBe(false);
    }
    // What we read from clients takes them as legacy aliases (Codex 0.169 rejects them).
    expect(AskForApprovalInput.parse("on-failure")).toBe("on-request");
    expect(AskForApprovalInput.parse("unlessTrusted")).toBe("untrusted");
    expect(checkDefinition("SandboxMode", "workspaceWrite")).not.toEqual([]);
    expect(SandboxMode.safeParse("workspaceWrite").success).toBe(false);
    expect(checkDefinition("SandboxPolicy", { type: "workspace-write" })).not.toEqual([]);
    expect(SandboxPolicy.safeParse({ type: "workspace-write" }).success).toBe(false);
  });
});

describe.skipIf(!referenceAvailable)("the conformance checker itself", () => {
  it("catches a notification that breaks the reference", async () => {
    const { checkServerMessage } = await import("./referenceSchema.js");
    const broken = { method: "turn/started", params: { threadId: 1 }, emittedAtMs: 1 };
    expect(checkServerMessage(broken, () => undefined)).not.toEqual([]);
    const noStamp = { method: "thread/status/changed", params: { threadId: "t", status: { type: "idle" } } };
    expect(checkServerMessage(noStamp, () => undefined)).toEqual(["notification thread/status/changed lacks an integer emittedAtMs"]);
    const badResponse = { id: 1, result: { userAgent: "x" } };
    expect(checkServerMessage(badResponse, () => "initialize")).not.toEqual([]);
  });
});
