import * as z from "zod";
import { describe, expect, it } from "vitest";
import { lazySchema } from "../../src/protocol/lazySchema.js";

describe("lazySchema", () => {
  it("builds a schema on first use only, in place, and it then behaves as the schema built outright", () => {
    let builds = 0;
    const Inner = lazySchema(() => {
      builds++;
      return z.object({ name: z.string() }).describe("inner");
    });
    const Outer = lazySchema(() => z.object({ inner: Inner.optional(), tags: z.array(Inner) }));
    expect(builds).toBe(0);
    expect(Outer.parse({ tags: [{ name: "a", extra: 1 }] })).toEqual({ tags: [{ name: "a" }] });
    expect(builds).toBe(1);
    expect(Inner.safeParse({ name: 1 }).success).toBe(false);
    expect(Inner).toBeInstanceOf(z.ZodObject);
    expect(Object.keys(Inner.shape)).toEqual(["name"]);
    expect(builds).toBe(1);
  });

  it("keeps one identity, so JSON Schema generation names a shared schema once", () => {
    const Shared = lazySchema(() => z.object({ id: z.string() }).pipe(z.object({ id: z.string() })));
    const Holder = lazySchema(() => z.object({ first: Shared, second: Shared }));
    const registry = z.registry<{ id: string }>();
    registry.add(Shared, { id: "Shared" });
    registry.add(Holder, { id: "Holder" });
    const { schemas } = z.toJSONSchema(registry, { target: "draft-07", io: "input", uri: (id) => id });
    expect(schemas.Holder).toMatchObject({ properties: { first: { $ref: "Shared" }, second: { $ref: "Shared" } } });
  });

  it("says so when a schema's build uses the schema itself", () => {
    const Loop: z.ZodType = lazySchema((): z.ZodType => Loop.optional());
    expect(() => Loop.parse(undefined)).toThrow(/uses the schema itself/);
  });
});
