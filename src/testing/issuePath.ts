/** A zod issue path as a script author writes it: `model[1].items[0].type`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("").replace(/^\./, "");
}
