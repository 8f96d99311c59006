import * as z from "zod";

/** Params of `account/login/start`: an OpenAI API key, or one of Codex's ChatGPT sign-ins (refused here). */
export const LoginAccountParams = z.union([
  z.object({ type: z.literal("apiKey"), apiKey: z.string().min(1) }),
  z.object({ type: z.enum(["chatgpt", "chatgptDeviceCode", "chatgptAuthTokens"]) }).loose(),
]);
export type LoginAccountParams = z.infer<typeof LoginAccountParams>;

/** Result of `account/login/start` with an API key: done at once. */
export const LoginAccountResponse = z.object({ type: z.literal("apiKey") });

/** Params of `account/login/cancel`. */
export const CancelLoginAccountParams = z.object({ loginId: z.string() });

/** Result of `account/login/cancel`: an API-key login never waits, so there is never one to cancel. */
export const CancelLoginAccountResponse = z.object({ status: z.enum(["canceled", "notFound"]) });

/** `account/login/completed`. */
export const AccountLoginCompletedNotification = z.object({
  loginId: z.string().nullable().optional(),
  success: z.boolean(),
  error: z.string().nullable().optional(),
});

/** `account/updated`: how the server authenticates to OpenAI now (null: no stored login). */
export const AccountUpdatedNotification = z.object({
  authMode: z.enum(["apikey"]).nullable().optional(),
  planType: z.string().nullable().optional(),
});

/** Result of `account/rateLimits/read`: an API key has no plan windows or credits to report. */
export const GetAccountRateLimitsResponse = z.object({
  rateLimits: z.object({
    limitId: z.string().nullable().optional(),
    limitName: z.string().nullable().optional(),
    primary: z.null().optional(),
    secondary: z.null().optional(),
    credits: z.null().optional(),
    planType: z.null().optional(),
  }),
  rateLimitsByLimitId: z.record(z.string(), z.unknown()).nullable().optional(),
});
