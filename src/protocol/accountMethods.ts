import * as z from "zod";
import { lazySchema } from "./lazySchema.js";

/** Params of `account/login/start`: an OpenAI API key, or one of Codex's ChatGPT sign-ins (refused here). */
export const LoginAccountParams = lazySchema(() => z.union([
  z.object({ type: z.literal("apiKey"), apiKey: z.string().min(1) }),
  z.object({ type: z.enum(["chatgpt", "chatgptDeviceCode", "chatgptAuthTokens"]) }).loose(),
]));
export type LoginAccountParams = z.infer<typeof LoginAccountParams>;

/** Result of `account/login/start` with an API key: done at once. */
export const LoginAccountResponse = lazySchema(() => z.object({ type: z.literal("apiKey") }));

/** Params of `account/login/cancel`. */
export const CancelLoginAccountParams = lazySchema(() => z.object({ loginId: z.string() }));

/** Result of `account/login/cancel`: an API-key login never waits, so there is never one to cancel. */
export const CancelLoginAccountResponse = lazySchema(() => z.object({ status: z.enum(["canceled", "notFound"]) }));

/** `account/login/completed`. */
export const AccountLoginCompletedNotification = lazySchema(() => z.object({
  loginId: z.string().nullable().optional(),
  success: z.boolean(),
  error: z.string().nullable().optional(),
}));

/** `account/updated`: how the server authenticates to OpenAI now (null: no stored login). */
export const AccountUpdatedNotification = lazySchema(() => z.object({
  authMode: z.enum(["apikey"]).nullable().optional(),
  planType: z.string().nullable().optional(),
}));

/** Result of `account/rateLimits/read`: an API key has no plan windows or credits to report. */
export const GetAccountRateLimitsResponse = lazySchema(() => z.object({
  rateLimits: z.object({
    limitId: z.string().nullable().optional(),
    limitName: z.string().nullable().optional(),
    primary: z.null().optional(),
    secondary: z.null().optional(),
    credits: z.null().optional(),
    planType: z.null().optional(),
  }),
  rateLimitsByLimitId: z.record(z.string(), z.unknown()).nullable().optional(),
}));
