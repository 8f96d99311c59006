import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";

const read = (file: string) => JSON.parse(readFileSync(path.resolve(file), "utf8"));

describe("the test author's schemas", () => {
  it("schema/Scenario.json accepts every fixture and refuses a step of no known kind's shape", () => {
    const validate = new Ajv({ strict: false }).compile(read("schema/Scenario.json"));
    const fixtures = readdirSync("fixtures").filter((file) => file.endsWith(".scenario.json"));
    expect(fixtures.length).toBeGreaterThan(5);
    for (const file of fixtures) expect(validate(read(path.join("fixtures", file))), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(validate({ name: "bad", steps: [{ request: 42 }] })).toBe(false);
  });

  it("schema/ModelScript.json accepts the shipped example script and refuses an unknown item type", () => {
    const validate = new Ajv({ strict: false }).compile(read("schema/ModelScript.json"));
    expect(validate(read("examples/hello.script.json")), JSON.stringify(validate.errors)).toBe(true);
    expect(validate([{ items: [{ type: "telepathy" }] }])).toBe(false);
  });
});
