import type { AskForApproval, SandboxPolicy } from "../protocol/policy.js";

/** Facts about where the turn runs, given to the model as a user message. */
export interface EnvironmentFacts {
  readonly cwd: string;
  readonly approvalPolicy: AskForApproval;
  readonly sandbox: SandboxPolicy;
  readonly shell: string;
}

/** The `<environment_context>` block: cwd, approval policy, sandbox and shell. */
export function environmentContext(facts: EnvironmentFacts): string {
  const approval = typeof facts.approvalPolicy === "string" ? facts.approvalPolicy : "granular";
  const lines = [
    "<environment_context>",
    `  <cwd>${facts.cwd}</cwd>`,
    `  <approval_policy>${approval}</approval_policy>`,
    `  <sandbox_mode>${sandboxMode(facts.sandbox)}</sandbox_mode>`,
  ];
  if (facts.sandbox.type === "workspaceWrite") {
    lines.push(`  <network_access>${facts.sandbox.networkAccess ? "enabled" : "restricted"}</network_access>`);
    for (const root of facts.sandbox.writableRoots ?? []) lines.push(`  <writable_root>${root}</writable_root>`);
  }
  lines.push(`  <shell>${facts.shell}</shell>`, "</environment_context>");
  return lines.join("\n");
}

function sandboxMode(sandbox: SandboxPolicy): string {
  switch (sandbox.type) {
    case "dangerFullAccess":
      return "danger-full-access";
    case "readOnly":
      return "read-only";
    case "workspaceWrite":
      return "workspace-write";
    case "externalSandbox":
      return "external-sandbox";
  }
}
