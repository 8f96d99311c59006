#!/usr/bin/env node
// `npm run schema`: writes schema/ (JSON Schema of every message, and of scenarios and model scripts) and src/protocol/types.ts (their
// TypeScript types, what `agent-app-server/protocol` and the client export) from the zod schemas,
// as built in dist/. Tests fail when either is stale.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { generateJsonSchemas, renderSchemaFile } = await import(path.join(root, "dist/protocol/jsonSchema.js"));
const { generateTypeScript } = await import(path.join(root, "dist/protocol/typeScript.js"));
const { generateTestingSchemas } = await import(path.join(root, "dist/testing/testingSchemas.js"));

const schemaDir = path.join(root, "schema");
rmSync(schemaDir, { recursive: true, force: true });
mkdirSync(schemaDir, { recursive: true });
for (const [file, schema] of [...generateJsonSchemas(), ...generateTestingSchemas()]) writeFileSync(path.join(schemaDir, file), renderSchemaFile(schema));
writeFileSync(path.join(root, "src/protocol/types.ts"), generateTypeScript());
