import { z } from "zod";

/**
 * Walks the zod schema along a key path, so that messages can list the keys allowed at a level,
 * and `${VAR}` results can be typed by the key that receives them. Only the wrappers the config
 * schema uses are looked through (default, optional, nullable, pipe input, object, array, union).
 */

type Schema = z.core.$ZodType;

/** The schema without default/optional/nullable/pipe wrappers. */
export function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    if (current instanceof z.core.$ZodDefault || current instanceof z.core.$ZodOptional) {
      current = current._zod.def.innerType;
    } else if (current instanceof z.core.$ZodNullable || current instanceof z.core.$ZodPrefault) {
      current = current._zod.def.innerType;
    } else if (current instanceof z.core.$ZodPipe) {
      current = current._zod.def.in;
    } else {
      return current;
    }
  }
  return current;
}

/** The schema of the value at `path`, or undefined when the path leaves the schema. */
export function schemaAt(root: Schema, path: readonly PropertyKey[]): Schema | undefined {
  let current: Schema | undefined = unwrap(root);
  for (const segment of path) {
    if (current === undefined) return undefined;
    current = child(current, segment);
  }
  return current;
}

function child(schema: Schema, segment: PropertyKey): Schema | undefined {
  if (schema instanceof z.core.$ZodObject && typeof segment === "string") {
    const next = schema._zod.def.shape[segment];
    return next === undefined ? undefined : unwrap(next);
  }
  if (schema instanceof z.core.$ZodArray && typeof segment === "number")
    return unwrap(schema._zod.def.element);
  if (schema instanceof z.core.$ZodUnion) {
    for (const option of schema._zod.def.options) {
      const next = child(unwrap(option), segment);
      if (next !== undefined) return next;
    }
  }
  return undefined;
}

/** The keys a mapping at `path` may have; empty when the path is not a mapping. */
export function knownKeys(root: Schema, path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(root, path);
  return schema instanceof z.core.$ZodObject ? Object.keys(schema._zod.def.shape) : [];
}

type ScalarKind = "string" | "number" | "boolean";

/** Whether a value at `path` may be of this scalar kind (enums count as strings). */
export function accepts(root: Schema, path: readonly PropertyKey[], kind: ScalarKind): boolean {
  const schema = schemaAt(root, path);
  return schema !== undefined && acceptsKind(schema, kind);
}

function acceptsKind(schema: Schema, kind: ScalarKind): boolean {
  if (schema instanceof z.core.$ZodUnion)
    return schema._zod.def.options.some((o) => acceptsKind(unwrap(o), kind));
  switch (kind) {
    case "string":
      return schema instanceof z.core.$ZodString || schema instanceof z.core.$ZodEnum;
    case "number":
      return schema instanceof z.core.$ZodNumber;
    case "boolean":
      return schema instanceof z.core.$ZodBoolean;
  }
}

/** Where each key of the schema lives, as `{ key, parent }` with `parent` like `github.write_budget` or `routes[]`. */
export function keyLocations(root: Schema): Array<{ key: string; parent: string }> {
  const found: Array<{ key: string; parent: string }> = [];
  const visit = (schema: Schema, parent: string, depth: number): void => {
    if (depth > 10) return;
    const inner = unwrap(schema);
    if (inner instanceof z.core.$ZodObject) {
      for (const [key, child] of Object.entries(inner._zod.def.shape)) {
        found.push({ key, parent });
        visit(child, parent === "" ? key : `${parent}.${key}`, depth + 1);
      }
    } else if (inner instanceof z.core.$ZodArray) {
      visit(inner._zod.def.element, `${parent}[]`, depth + 1);
    }
  };
  visit(root, "", 0);
  return found;
}
