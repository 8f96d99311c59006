import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** A UI span inside a text input; echoed back, never interpreted. */
export const TextElement = lazySchema(() => z.object({
  byteRange: z.object({ start: z.number().int(), end: z.number().int() }),
  placeholder: z.string().nullable().optional(),
}));

/** Image detail requested from the model. */
export const ImageDetail = lazySchema(() => z.enum(["auto", "low", "high", "original"]));

const TextInput = lazySchema(() => z.object({
  type: z.literal("text"),
  text: z.string(),
  text_elements: z.array(TextElement).optional(),
}));

const ImageInput = lazySchema(() => z
  .object({
    type: z.literal("image"),
    url: z.string().optional(),
    fileId: z.string().optional(),
    detail: ImageDetail.nullable().optional(),
  })
  .refine((input) => input.url !== undefined || input.fileId !== undefined, {
    message: "an image needs either `url` or `fileId`",
  }));

const LocalImageInput = lazySchema(() => z.object({
  type: z.literal("localImage"),
  path: z.string(),
  detail: ImageDetail.nullable().optional(),
}));

const AudioInput = lazySchema(() => z
  .object({ type: z.literal("audio"), url: z.string().optional(), fileId: z.string().optional() })
  .refine((input) => input.url !== undefined || input.fileId !== undefined, {
    message: "audio needs either `url` or `fileId`",
  }));

const LocalAudioInput = lazySchema(() => z.object({ type: z.literal("localAudio"), path: z.string() }));
const SkillInput = lazySchema(() => z.object({ type: z.literal("skill"), name: z.string(), path: z.string() }));
const MentionInput = lazySchema(() => z.object({ type: z.literal("mention"), name: z.string(), path: z.string() }));

/** One piece of user input to a turn. */
export const UserInput = lazySchema(() => z.discriminatedUnion("type", [
  TextInput,
  ImageInput,
  LocalImageInput,
  AudioInput,
  LocalAudioInput,
  SkillInput,
  MentionInput,
]));
export type UserInput = z.infer<typeof UserInput>;
