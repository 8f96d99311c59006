/**
 * The Google Gen AI SDK as this package uses it, bundled into dist/vendor/genai.js by the build
 * (scripts/vendor.mjs) as the openai SDK is; loaded only when a turn speaks `wire_api = "gemini"`.
 */
export { GoogleGenAI, ApiError } from "@google/genai";
export type {
  Content,
  FunctionDeclaration,
  GenerateContentConfig,
  GenerateContentResponse,
  GenerateContentResponseUsageMetadata,
  HttpOptions,
  Part,
  ThinkingConfig,
  ThinkingLevel,
} from "@google/genai";
