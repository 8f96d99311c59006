import type { InitializeParams } from "./initialize.js";
import type { RequestId } from "./jsonrpc.js";

/** An `initialize` request read by {@link readPlainInitialize}. */
export interface PlainInitialize {
  readonly id: RequestId;
  readonly params: InitializeParams;
}

const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const BOOLEAN_CAPABILITIES = ["experimentalApi", "requestAttestation", "requiredHumanApproval", "mcpServerOpenaiFormElicitation", "explicitGatewayOauth"];

/**
 * Reads one input line as an `initialize` request without zod: the command line's early handshake
 * answers it before the schemas have loaded. It is a conservative subset of the real reading (the
 * envelope, then `InitializeParams`): whatever it accepts, they accept too, with the same values.
 * Anything it is unsure of is null, and the full server then reads the line as usual.
 */
export function readPlainInitialize(text: string): PlainInitialize | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainRecord(value) || Object.keys(value).some((key) => !MESSAGE_KEYS.has(key))) return null;
  if (value.method !== "initialize" || (value.jsonrpc !== undefined && value.jsonrpc !== "2.0")) return null;
  const { id, params } = value;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return null;
  if (!isPlainRecord(params) || !isClientInfo(params.clientInfo) || !isCapabilities(params.capabilities)) return null;
  return { id, params: params as InitializeParams };
}

function isClientInfo(value: unknown): boolean {
  return (
    isPlainRecord(value) &&
    typeof value.name === "string" &&
    typeof value.version === "string" &&
    (value.title === undefined || value.title === null || typeof value.title === "string")
  );
}

function isCapabilities(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isPlainRecord(value)) return false;
  if (!BOOLEAN_CAPABILITIES.every((key) => value[key] === undefined || typeof value[key] === "boolean")) return false;
  const optOut = value.optOutNotificationMethods;
  if (!(optOut === undefined || optOut === null || (Array.isArray(optOut) && optOut.every((method) => typeof method === "string")))) return false;
  return value.extensions === undefined || value.extensions === null || isPlainRecord(value.extensions);
}

/** A JSON object (not an array), without an own `__proto__` key, which would be read differently by different code. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Object.hasOwn(value, "__proto__");
}
