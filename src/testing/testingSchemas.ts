import * as z from "zod";
import { toJsonSchema, type SchemaFiles } from "../protocol/jsonSchema.js";
import { MockResponse } from "./mockScript.js";
import { Scenario } from "./scenario.js";

/** What `--script FILE` takes: a list of responses, or an object with a `model` or `responses` list. */
const ModelScript = z.union([
  z.array(MockResponse),
  z.looseObject({ model: z.array(MockResponse) }),
  z.looseObject({ responses: z.array(MockResponse) }),
]);

/**
 * JSON Schema of the test author's files, generated from the zod definitions the CLI validates
 * with: `Scenario.json` (what `replay` plays and `record` writes) and `ModelScript.json` (`--script`).
 */
export function generateTestingSchemas(): SchemaFiles {
  return new Map([
    ["Scenario.json", toJsonSchema(Scenario, "Scenario")],
    ["ModelScript.json", toJsonSchema(ModelScript, "ModelScript")],
  ]);
}
