import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateJsonSchemas, renderSchemaFile } from "../../src/protocol/jsonSchema.js";
import { generateTestingSchemas } from "../../src/testing/testingSchemas.js";

const SCHEMA_DIR = path.resolve("schema");

describe("schema/", () => {
  it("is what the zod definitions generate (run `npm run schema` after changing src/protocol or the scenario format)", () => {
    const generated = new Map([...generateJsonSchemas(), ...generateTestingSchemas()]);
    const onDisk = readdirSync(SCHEMA_DIR).filter((file) => file.endsWith(".json"));
    expect(onDisk.sort()).toEqual([...generated.keys()].sort());
    for (const [file, schema] of generated) {
      expect(readFileSync(path.join(SCHEMA_DIR, file), "utf8"), file).toBe(renderSchemaFile(schema));
    }
  });
});
