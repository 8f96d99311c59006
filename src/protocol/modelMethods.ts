import * as z from "zod";

/** Params of `model/list`. */
export const ModelListParams = z.object({
  cursor: z.string().nullable().optional(),
  limit: z.number().int().nonnegative().nullable().optional(),
  includeHidden: z.boolean().nullable().optional(),
  modelProvider: z.string().nullable().optional(),
});
export type ModelListParams = z.infer<typeof ModelListParams>;

/** A reasoning effort a model supports, with a line a picker can show. */
export const ReasoningEffortOption = z.object({ reasoningEffort: z.string(), description: z.string() });

/** One model a client can pick. */
export const Model = z.object({
  id: z.string(),
  model: z.string(),
  displayName: z.string(),
  description: z.string(),
  hidden: z.boolean(),
  isDefault: z.boolean(),
  supportedReasoningEfforts: z.array(ReasoningEffortOption),
  defaultReasoningEffort: z.string(),
  inputModalities: z.array(z.enum(["text", "image", "audio"])).optional(),
  supportsPersonality: z.boolean().optional(),
  upgrade: z.string().nullable().optional(),
});
export type Model = z.infer<typeof Model>;

/** A page of models. */
export const ModelListResponse = z.object({ data: z.array(Model), nextCursor: z.string().nullable().optional() });
