import * as z from "zod";

/** A UI span inside a text input; echoed back, never interpreted. */
export const TextElement = z.object({
  byteRange: z.object({ start: z.number().int(), end: z.number().int() }),
  placeholder: z.string().nullable().optional(),
});

/** Image detail requested from the model. */
export const ImageDetail = z.enum(["auto", "low", "high", "original"]);

const TextInput = z.object({
  type: z.literal("text"),
  text: z.string(),
  text_elements: z.array(TextElement).optional(),
});

const ImageInput = z
  .object({
    type: z.literal("image"),
    url: z.string().optional(),
    fileId: z.string().optional(),
    detail: ImageDetail.nullable().optional(),
  })
  .refine((input) => input.url !== undefined || input.fileId !== undefined, {
    message: "an image needs either `url` or `fileId`",
  });

const LocalImageInput = z.object({
  type: z.literal("localImage"),
  path: z.string(),
  detail: ImageDetail.nullable().optional(),
});

const AudioInput = z
  .object({ type: z.literal("audio"), url: z.string().optional(), fileId: z.string().optional() })
  .refine((input) => input.url !== undefined || input.fileId !== undefined, {
    message: "audio needs either `url` or `fileId`",
  });

const LocalAudioInput = z.object({ type: z.literal("localAudio"), path: z.string() });
const SkillInput = z.object({ type: z.literal("skill"), name: z.string(), path: z.string() });
const MentionInput = z.object({ type: z.literal("mention"), name: z.string(), path: z.string() });

/** One piece of user input to a turn. */
export const UserInput = z.discriminatedUnion("type", [
  TextInput,
  ImageInput,
  LocalImageInput,
  AudioInput,
  LocalAudioInput,
  SkillInput,
  MentionInput,
]);
export type UserInput = z.infer<typeof UserInput>;
