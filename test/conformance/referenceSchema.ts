import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { CODEX_CLIENT_METHODS } from "../../src/protocol/codexMethods.js";
import { clientRequestSpec } from "../../src/protocol/methods.js";

/** Where the Codex reference schema lives: `../shared/...` beside the project, or `CODEX_SCHEMA_DIR`. */
export const REFERENCE_DIR =
  process.env.CODEX_SCHEMA_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/reference/codex-app-server-schema");

/** True when the reference files are present. */
export const referenceAvailable = existsSync(path.join(REFERENCE_DIR, "ServerNotification.json"));

// Response type names that do not follow `<Params name minus "Params">Response`.
const RESPONSE_NAME_EXCEPTIONS: Record<string, string> = {
  "config/value/write": "ConfigWriteResponse",
  "config/batchWrite": "ConfigWriteResponse",
  "configRequirements/read": "ConfigRequirementsReadResponse",
};

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();

function load(file: string): object {
  return JSON.parse(readFileSync(path.join(REFERENCE_DIR, file), "utf8")) as object;
}

function validatorFor(file: string): ValidateFunction {
  let validate = compiled.get(file);
  if (!validate) {
    validate = ajv.compile(load(file));
    compiled.set(file, validate);
  }
  return validate;
}

let paramsNameByMethod: Map<string, string> | undefined;

/** The reference's params type name of client request `method` (e.g. `ThreadStartParams`). */
function paramsTypeName(method: string): string | undefined {
  if (!paramsNameByMethod) {
    const clientRequest = load("ClientRequest.json") as { oneOf: Array<{ properties: any }> };
    paramsNameByMethod = new Map(
      clientRequest.oneOf.map((branch) => [
        branch.properties.method.enum[0] as string,
        String(branch.properties.params.$ref).split("/").pop()!,
      ]),
    );
  }
  return paramsNameByMethod.get(method);
}

function referenceFile(typeName: string): string | undefined {
  for (const dir of ["v2", "v1", "."]) {
    const file = path.join(dir, `${typeName}.json`);
    if (existsSync(path.join(REFERENCE_DIR, file))) return file;
  }
  return undefined;
}

function describe(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: "; " });
}

/** Validates `value` against a reference file; returns the problems, empty when it conforms. */
export function checkAgainst(file: string, value: unknown): string[] {
  const validate = validatorFor(file);
  return validate(value) ? [] : [`${file}: ${describe(validate)}`];
}

/** Validates `value` against one definition of the v2 bundle (e.g. `UserInput`). */
export function checkDefinition(definition: string, value: unknown): string[] {
  const key = `#definition:${definition}`;
  let validate = compiled.get(key);
  if (!validate) {
    const bundle = load("codex_app_server_protocol.v2.schemas.json") as { definitions: Record<string, object> };
    validate = ajv.compile({ definitions: bundle.definitions, $ref: `#/definitions/${definition}` });
    compiled.set(key, validate);
  }
  return validate(value) ? [] : [`${definition}: ${describe(validate)}`];
}

/** The reference's params schema file for a client request, if the reference has the method. */
export function requestParamsFile(method: string): string | undefined {
  const name = paramsTypeName(method);
  return name ? referenceFile(name) : undefined;
}

/** The reference's response schema file for a client request, if the reference has the method. */
export function responseFile(method: string): string | undefined {
  const name = RESPONSE_NAME_EXCEPTIONS[method] ?? paramsTypeName(method)?.replace(/Params$/, "Response");
  return name ? referenceFile(name) : undefined;
}

/**
 * Checks one message the server sent. `requestMethod` looks up which method a response answers.
 * Notifications must match `ServerNotification.json` and carry an integer `emittedAtMs`; server
 * requests must match `ServerRequest.json` with integer ids; responses their method's `*Response`.
 */
export function checkServerMessage(message: any, requestMethod: (id: unknown) => string | undefined): string[] {
  if (typeof message !== "object" || message === null) return ["not a JSON object"];
  if ("method" in message && "id" in message) {
    const problems = checkAgainst("ServerRequest.json", { id: message.id, method: message.method, params: message.params });
    if (!Number.isInteger(message.id)) problems.push(`server request id ${JSON.stringify(message.id)} is not an integer`);
    return problems;
  }
  if ("method" in message) {
    const problems = checkAgainst("ServerNotification.json", { method: message.method, params: message.params });
    if (!Number.isInteger(message.emittedAtMs)) problems.push(`notification ${message.method} lacks an integer emittedAtMs`);
    return problems;
  }
  if ("error" in message) {
    // `id: null` answers lines Codex drops silently (malformed JSON and the like): a deliberate
    // difference listed in docs/protocol-coverage.md; the rest of the message must still conform.
    return checkAgainst("JSONRPCError.json", message.id === null ? { ...message, id: 0 } : message);
  }
  if ("result" in message) {
    const method = requestMethod(message.id);
    if (!method) return [`response to unknown request id ${JSON.stringify(message.id)}`];
    const file = responseFile(method);
    if (file) return checkAgainst(file, message.result);
    // Codex's experimental methods are missing from the stable reference: hold those to our own schema.
    const spec = CODEX_CLIENT_METHODS.has(method) ? clientRequestSpec(method) : undefined;
    if (!spec) return [`no reference response schema for ${method}`];
    const parsed = spec.result.safeParse(message.result);
    return parsed.success ? [] : [`${method} result: ${parsed.error.message}`];
  }
  return ["neither a request, a notification nor a response"];
}
