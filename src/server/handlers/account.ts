import type { AuthStore } from "../../config/authStore.js";
import { invalidRequest } from "../../protocol/errors.js";
import type { ClientHub } from "../clientHub.js";
import type { HandlerTable } from "../dispatcher.js";
import { respond } from "./respond.js";

type AccountHandlers = Pick<
  HandlerTable,
  "account/read" | "account/bedrock/checkGovCloudRequirements" | "account/login/start" | "account/login/cancel" | "account/logout" | "account/rateLimits/read"
>;

/**
 * `account/*`: the only login here is an OpenAI API key, stored as Codex stores it (auth.json) and
 * used by providers that read `OPENAI_API_KEY` when the environment has none. Every client hears
 * of a change (`account/updated`). ChatGPT sign-ins need a ChatGPT account and are refused.
 */
export function accountHandlers(auth: AuthStore, hub: ClientHub): AccountHandlers {
  const announce = () => hub.toInitialized("account/updated", { authMode: auth.loggedIn ? "apikey" : null, planType: null });
  return {
    // Every field Codex sends, in its order; there is no ChatGPT user or workspace here.
    "account/read": () => ({ account: auth.loggedIn ? { type: "apiKey" as const } : null, userId: null, requiresOpenaiAuth: false, workspaceRouting: null }),
    "account/bedrock/checkGovCloudRequirements": () => ({ isGovCloud: false, shouldWarn: false }),
    "account/login/start": async (params, context) => {
      if (params.type !== "apiKey" || !("apiKey" in params)) {
        throw invalidRequest(`account/login/start type ${params.type} requires a ChatGPT account, which this server does not use; log in with {type: "apiKey", apiKey}`);
      }
      await auth.login(params.apiKey as string);
      return respond(context, {
        result: { type: "apiKey" as const },
        after: () => {
          hub.emit([context.connection], "account/login/completed", { loginId: null, success: true, error: null });
          announce();
        },
      });
    },
    // An API-key login completes at once: there is never one in progress to cancel.
    "account/login/cancel": () => ({ status: "notFound" as const }),
    "account/logout": async (_params, context) => {
      await auth.logout();
      return respond(context, { result: {}, after: announce });
    },
    // Rate limits belong to a ChatGPT account, which this server never has: refused as Codex
    // refuses them without one (an API key has no plan windows or credits to report).
    "account/rateLimits/read": () => {
      throw invalidRequest(auth.loggedIn ? "chatgpt authentication required to read rate limits" : "codex account authentication required to read rate limits");
    },
  };
}
