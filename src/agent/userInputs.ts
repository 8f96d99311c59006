import { readFile } from "node:fs/promises";
import path from "node:path";
import type { UserInput } from "../protocol/userInput.js";
import type { ContentPart, ConversationItem } from "./conversation.js";

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The MIME type of an image file by extension, or null when it is not an image we can send. */
export function imageMimeType(file: string): string | null {
  return IMAGE_TYPES[path.extname(file).toLowerCase()] ?? null;
}

/** Reads a local image as a data URL for the model. */
export async function imageDataUrl(file: string): Promise<string> {
  const mime = imageMimeType(file);
  if (!mime) throw new Error(`unsupported image type \`${path.extname(file) || file}\` (use png, jpeg, gif or webp)`);
  const bytes = await readFile(file);
  return `data:${mime};base64,${bytes.toString("base64")}`;
}

/** A user message for the model from a turn's input items; local images are read now, relative to `cwd`. */
export async function toModelMessage(inputs: readonly UserInput[], cwd: string): Promise<ConversationItem> {
  const content: ContentPart[] = [];
  let images = 0;
  for (const input of inputs) {
    switch (input.type) {
      case "text":
        content.push({ type: "input_text", text: input.text });
        break;
      case "image":
        if (input.url) content.push({ type: "input_image", image_url: input.url, ...(input.detail ? { detail: input.detail } : {}) });
        break;
      case "localImage": {
        const file = path.resolve(cwd, input.path);
        images++;
        try {
          const url = await imageDataUrl(file);
          content.push({ type: "input_text", text: `<image name=[Image #${images}] path="${file}">` });
          content.push({ type: "input_image", image_url: url, ...(input.detail ? { detail: input.detail } : {}) });
          content.push({ type: "input_text", text: "</image>" });
        } catch (error) {
          content.push({ type: "input_text", text: `[image ${file} could not be read: ${(error as Error).message}]` });
        }
        break;
      }
      case "skill":
      case "mention":
        content.push({ type: "input_text", text: `[${input.name}](${input.path})` });
        break;
      case "audio":
      case "localAudio":
        content.push({ type: "input_text", text: "[audio input is not supported by this server]" });
        break;
    }
  }
  return { type: "message", role: "user", content };
}

/** Why a turn's input cannot be accepted, or null: remote image URLs are refused, as by Codex 0.169. */
export function checkTurnInput(inputs: readonly UserInput[]): string | null {
  for (const input of inputs) {
    if (input.type === "image" && input.url && /^https?:/i.test(input.url)) {
      return "remote image URLs are not supported; use an inline data URL instead";
    }
  }
  return null;
}
