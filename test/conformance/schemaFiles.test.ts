import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateJsonSchemas, renderSchemaFile } from "../../src/protocol/jsonSchema.js";

const SCHEMA_DIR = path.resolve("schema");

describe("schema/", () => {
  it("is what the zod definitions generate (run `npm run schema` after changing src/protocol)", () => {
    const generated = generateJsonSchemas();
    const onDisk = readdirSync(SCHEMA_DIR).filter((file) => file.endsWith(".json"));
    expect(onDisk.sort()).toEqual([...generated.keys()].sort());
    for (const [file, schema] of generated) {
      expect(readFileSync(path.join(SCHEMA_DIR, file), "utf8"), file).toBe(renderSchemaFile(schema));
    }
  });
});
