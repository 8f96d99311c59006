import type * as z from "zod";

/** How each schema not yet built is built. */
const builders = new WeakMap<object, () => z.ZodType>();

/**
 * The prototype of every schema not yet built: the first property anything looks up or sets on
 * one (zod reads `_zod` before all else, and every method is looked up too) builds it, in place.
 * Until then the schema has no properties of its own (`in` cannot tell which schema asks, so it
 * answers false).
 */
const UNBUILT: object = new Proxy(Object.create(null) as object, {
  get: (_, key, schema: object) => Reflect.get(buildInPlace(schema), key),
  set: (_, key, value, schema: object) => Reflect.set(buildInPlace(schema), key, value),
});

/**
 * A module-level zod schema that is built the first time anything touches it. The protocol
 * defines some 340 schemas, and building them all took ~45 ms of every start (zod's classic
 * schemas do much of their set-up per instance), while a start that serves `initialize` and
 * `thread/start` parses a few messages.
 *
 * The object returned is the schema itself, not a stand-in: on first use, `build` makes the schema
 * and its constructor runs again on this object with the same definition. So there is one
 * identity before and after (schemas that refer to it hold this object, as registries and JSON
 * Schema generation expect), and no cost once built.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): T {
  const schema = Object.create(UNBUILT) as T;
  builders.set(schema, build);
  return schema;
}

function buildInPlace(schema: object): object {
  const build = builders.get(schema);
  // Only a schema whose build touches the schema itself gets here without one.
  if (!build) throw new TypeError("lazySchema: a schema's build uses the schema itself");
  builders.delete(schema);
  const built = build() as unknown as { _zod: { constr: (this: object, def: unknown) => void; def: unknown } };
  Object.setPrototypeOf(schema, Object.getPrototypeOf(built));
  built._zod.constr.call(schema, built._zod.def);
  return schema;
}
