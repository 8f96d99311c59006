/** Whether a parsed JSON value is an object (not null, not an array): what a state file or record must be before its fields are read. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
