import { isLoopbackAddress } from "../../transport/loopback.js";
import { ModelError } from "./modelError.js";
import { displayableUrl, type ProviderSettings } from "./providers.js";

/** The system error codes a failed connection reports, in words. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * A model call that never got an HTTP answer, as an error naming the provider, its base URL
 * (without credentials or query) and what to check. A refused connection to a loopback address is
 * kind `refused` (retried once, quickly, then the turn fails: nothing listens on this machine, and
 * a backoff would only delay saying so); anything else is a `request` failure, retried as usual.
 */
export function connectionError(error: unknown, provider: ProviderSettings): ModelError {
  const url = displayableUrl(provider.baseUrl) ?? "its base_url";
  // fetch refuses a few ports outright (the fetch standard's "bad ports": 6000, 6665–6669…): no retry can help.
  if (innermostMessage(error) === "bad port") {
    const port = portOf(provider.baseUrl);
    return new ModelError(
      `model provider \`${provider.id}\` is at ${url}, on port ${port}, which Node's fetch refuses to connect to (a "bad port" of the fetch standard); serve it on another port and change model_providers.${provider.id}.base_url`,
      "fatal",
      { httpConnectionFailed: { httpStatusCode: null } },
    );
  }
  const failure = systemFailure(error);
  const code = failure?.code ?? null;
  const reason = code ? `${REASONS[code] ?? "connection failed"} (${code})` : innermostMessage(error);
  const message = `could not reach model provider \`${provider.id}\` at ${url}: ${reason}. ${hint(code, provider.id, url)}`;
  const kind = failure?.code === "ECONNREFUSED" && refusedHere(failure, provider.baseUrl) ? "refused" : "request";
  return new ModelError(message, kind, { httpConnectionFailed: { httpStatusCode: null } });
}

/** What the user should check, by failure. */
function hint(code: string | null, providerId: string, url: string): string {
  if (code === "ECONNREFUSED") {
    return providerId === "ollama" ? "Is Ollama running? Start it with `ollama serve`." : `Is the server at ${url} running?`;
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `Check the host name in model_providers.${providerId}.base_url.`;
  return `Check that the server at ${url} is running and reachable.`;
}

/**
 * Whether the refused connection was to this machine: by the address the socket tried (what
 * `localhost` resolved to), else by the base URL's host.
 */
function refusedHere(failure: SystemFailure, baseUrl: string): boolean {
  if (failure.address) return isLoopbackAddress(failure.address);
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || isLoopbackAddress(host.replace(/^\[(.*)\]$/, "$1"));
}

/** The port a base URL names (or its scheme's default). */
function portOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return url.port || (url.protocol === "https:" ? "443" : "80");
  } catch {
    return "(unknown)";
  }
}

/** A socket or DNS failure: its system error code and the address it tried, when known. */
interface SystemFailure {
  readonly code: string;
  readonly address: string | null;
}

/**
 * The first system error (`ECONNREFUSED`…) in an error's causes: the SDK wraps fetch's TypeError,
 * which wraps the socket's error, or an AggregateError of one per address tried.
 */
function systemFailure(error: unknown, depth = 0): SystemFailure | null {
  if (!(error instanceof Error) || depth > 5) return null;
  const { code, address } = error as { code?: unknown; address?: unknown };
  if (typeof code === "string" && /^[A-Z][A-Z_]+$/.test(code)) return { code, address: typeof address === "string" ? address : null };
  for (const inner of error instanceof AggregateError ? error.errors : []) {
    const found = systemFailure(inner, depth + 1);
    if (found) return found;
  }
  return systemFailure(error.cause, depth + 1);
}

/** The message of the deepest cause: "fetch failed" says less than what made it fail. */
function innermostMessage(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause instanceof Error; depth++) current = current.cause;
  return current instanceof Error ? current.message.replace(/\.$/, "") : String(error);
}
