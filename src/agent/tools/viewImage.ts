import path from "node:path";
import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import type { ContentPart, ToolCall } from "../conversation.js";
import { imageDataUrl } from "../userInputs.js";
import { parseArguments } from "./arguments.js";
import { readableRoots } from "./readableRoots.js";
import type { Tool, ToolContext } from "./tool.js";

const ViewImageArguments = lazySchema(() => z.object({ path: z.string() }));

/**
 * `view_image`: shows the model a local image (an `imageView` item; the image goes back as an
 * input image). Only regular files up to 20 MiB inside the turn's cwd and writable roots are read.
 */
export const viewImageTool: Tool = {
  spec: {
    kind: "function",
    name: "view_image",
    description: "Looks at a local image file (png, jpeg, gif or webp) so you can see it.",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "Path of the image, absolute or relative to the working directory." } },
      required: ["path"],
      additionalProperties: false,
    },
  },
  async run(call: ToolCall, context: ToolContext): Promise<string | ContentPart[]> {
    const parsed = parseArguments(call, ViewImageArguments);
    if (!parsed.ok) return parsed.message;
    const file = path.resolve(context.cwd, parsed.value.path);
    let url: string;
    try {
      url = await imageDataUrl(file, readableRoots(context));
    } catch (error) {
      return `view_image failed: ${(error as Error).message}`;
    }
    const item = { type: "imageView" as const, id: call.callId, path: file };
    await context.emit({ type: "itemStarted", item });
    await context.emit({ type: "itemCompleted", item });
    return [{ type: "input_image", image_url: url, detail: "original" }];
  },
};
