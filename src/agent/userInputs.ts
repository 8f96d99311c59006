import path from "node:path";
import type { UserInput } from "../protocol/userInput.js";
import { ConfinedFs, ConfinedFsError } from "../workspace/confinedFs.js";
import type { WritableRoots } from "../workspace/roots.js";
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

/** Largest image sent to the model; checked on the open file before it is read. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Reads a local image as a data URL for the model: a regular file of at most
 * {@link MAX_IMAGE_BYTES}, inside `readable` (null: anywhere), opened race-free. Throws with a
 * message that says why it was not read.
 */
export async function imageDataUrl(file: string, readable: WritableRoots | null): Promise<string> {
  const mime = imageMimeType(file);
  if (!mime) throw new Error(`unsupported image type \`${path.extname(file) || file}\` (use png, jpeg, gif or webp)`);
  const files = await ConfinedFs.create(readable);
  const bytes = await files.readFile(file, { maxBytes: MAX_IMAGE_BYTES }).catch((error: unknown) => {
    throw new Error(unreadableImage(error));
  });
  return `data:${mime};base64,${bytes.toString("base64")}`;
}

/** Why an image was not read, in words for the model. */
function unreadableImage(error: unknown): string {
  if (!(error instanceof ConfinedFsError)) return (error as Error).message;
  const resolves = error.location && error.location !== error.path ? ` (it resolves to ${error.location})` : "";
  if (error.code === "EOUTSIDE") {
    return `${error.path} is outside the directories this turn may read${resolves}: the working directory and the writable roots, ${(error.roots ?? []).join(", ")}`;
  }
  if (error.code === "ETOOLARGE") return `${error.path} is ${error.size ?? "too many"} bytes; images larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB are not read`;
  return error.message;
}


/**
 * A user message for the model from a turn's input items; local images are read now, relative to
 * `cwd`, wherever the user points (the user attaches them, not the model), regular files only.
 */
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
          const url = await imageDataUrl(file, null);
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
