import * as z from "zod";
import { lazySchema } from "./lazySchema.js";
import { PermissionProfileId, profileOrSandbox, SandboxPolicy } from "./policy.js";

/** PTY size in character cells (only meaningful with `tty`). */
export const CommandExecTerminalSize = lazySchema(() => z.object({
  rows: z.number().int().min(0).max(65_535),
  cols: z.number().int().min(0).max(65_535),
}));

/**
 * Params of `command/exec`: an argv run outside any thread, under `sandboxPolicy` (default: the
 * configured one). Mutually exclusive options are rejected here, naming the field, as Codex does.
 */
export const CommandExecParams = lazySchema(() => z
  .object({
    command: z.array(z.string()),
    processId: z.string().nullable().optional(),
    tty: z.boolean().optional(),
    streamStdin: z.boolean().optional(),
    streamStdoutStderr: z.boolean().optional(),
    outputBytesCap: z.number().int().nonnegative().nullable().optional(),
    disableOutputCap: z.boolean().optional(),
    disableTimeout: z.boolean().optional(),
    timeoutMs: z.number().int().nonnegative().nullable().optional(),
    cwd: z.string().nullable().optional(),
    env: z.record(z.string(), z.string().nullable()).nullable().optional(),
    size: CommandExecTerminalSize.nullable().optional(),
    sandboxPolicy: SandboxPolicy.nullable().optional(),
    /** Experimental: a permission profile instead of `sandboxPolicy`. */
    permissionProfile: PermissionProfileId.nullable().optional(),
  })
  .superRefine(profileOrSandbox("sandboxPolicy", "permissionProfile"))
  .superRefine((params, context) => {
    const conflict = (field: string, message: string) => context.addIssue({ code: "custom", path: [field], message });
    if (params.size != null && !params.tty) conflict("size", "command/exec size requires tty: true");
    if (params.disableTimeout && params.timeoutMs != null) conflict("timeoutMs", "command/exec cannot set both timeoutMs and disableTimeout");
    if (params.disableOutputCap && params.outputBytesCap != null) {
      conflict("outputBytesCap", "command/exec cannot set both outputBytesCap and disableOutputCap");
    }
  }));
export type CommandExecParams = z.infer<typeof CommandExecParams>;

/** Result of `command/exec`, sent once the process exited; a streamed stream's field is empty. */
export const CommandExecResponse = lazySchema(() => z.object({
  exitCode: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
}));

/** Params of `command/exec/write`: stdin bytes for a running command, and/or closing its stdin. */
export const CommandExecWriteParams = lazySchema(() => z
  .object({
    processId: z.string(),
    deltaBase64: z.base64().nullable().optional(),
    closeStdin: z.boolean().optional(),
  })
  .refine((params) => params.deltaBase64 != null || params.closeStdin === true, {
    path: ["deltaBase64"],
    message: "command/exec/write requires deltaBase64 or closeStdin",
  }));

/** Params of `command/exec/terminate`. */
export const CommandExecTerminateParams = lazySchema(() => z.object({ processId: z.string() }));

/** Params of `command/exec/outputDelta`: a base64 chunk of a streamed command's output. */
export const CommandExecOutputDeltaNotification = lazySchema(() => z.object({
  processId: z.string(),
  stream: z.enum(["stdout", "stderr"]),
  deltaBase64: z.string(),
  capReached: z.boolean(),
}));

/** Params of `command/exec/resize`: the new size of a `tty` command's terminal. */
export const CommandExecResizeParams = lazySchema(() => z.object({ processId: z.string(), size: CommandExecTerminalSize }));
