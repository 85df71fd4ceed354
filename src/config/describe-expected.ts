import { z } from "zod";
import { isSecretPath } from "./errors.js";
import { unwrap } from "./schema-walk.js";

/**
 * Plain-words descriptions for messages: what a key expects ("a whole number >= 0") and what the
 * file gave ("-1", "a list"). The expectation is read from the key's own JSON Schema, so ranges and
 * enums come from the one source of truth, `schema.ts`.
 */

/** The subset of a JSON Schema node that descriptions use; other keywords are kept and ignored. */
const JsonNode = z.looseObject({
  type: z.string().optional(),
  format: z.string().optional(),
  enum: z.array(z.unknown()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  minLength: z.number().optional(),
  pattern: z.string().optional(),
  title: z.string().optional(),
  examples: z.array(z.unknown()).optional(),
});

export function describeExpected(schema: z.core.$ZodType | undefined): string {
  if (schema === undefined) return "a valid value";
  const inner = unwrap(schema);
  if (inner instanceof z.core.$ZodUnion) {
    return inner._zod.def.options.map((option) => describeExpected(option)).join(" or ");
  }
  const parsed = JsonNode.safeParse(z.toJSONSchema(inner, { io: "input", unrepresentable: "any" }));
  if (!parsed.success) return "a valid value";
  // A key's title and examples (its `.meta`) say what a value is and looks like: `schedule: 15`
  // gets "a cron expression" and an example of one.
  const example = parsed.data.examples?.[0];
  const described = parsed.data.title ?? describeNode(parsed.data);
  return example === undefined ? described : `${described}, such as ${JSON.stringify(example)}`;
}

function describeNode(node: z.infer<typeof JsonNode>): string {
  if (node.enum !== undefined) return `one of ${node.enum.map(String).join(", ")}`;
  switch (node.type) {
    case "integer":
      return `a whole number${range(node)}`;
    case "number":
      return `a number${range(node)}`;
    case "string":
      if (node.format === "uri") return "an http(s) URL";
      if (node.pattern === "^\\d+$") return "a string of digits";
      if (node.pattern !== undefined) return `a string matching ${node.pattern}`;
      return node.minLength !== undefined && node.minLength > 0 ? "a non-empty string" : "a string";
    case "boolean":
      return "true or false";
    case "array":
      return "a list";
    case "object":
      return "a mapping (indented key: value lines)";
    default:
      return "a valid value";
  }
}

function range(node: z.infer<typeof JsonNode>): string {
  // zod writes the safe-integer bounds of z.int(); they are no news to an operator.
  const max = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? node.maximum : undefined;
  const min = node.minimum !== undefined && node.minimum > Number.MIN_SAFE_INTEGER ? node.minimum : undefined;
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (node.exclusiveMinimum !== undefined) return ` > ${node.exclusiveMinimum}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return "";
}

/** What the file gave, in words; the value itself only for keys that are not secrets. */
export function describeGiven(value: unknown, path: readonly PropertyKey[]): string {
  if (value === null || value === undefined) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const secret = isSecretPath(path);
  if (typeof value === "string") return secret ? "a string" : quote(value);
  if (typeof value === "number") return secret ? "a number" : String(value);
  if (typeof value === "boolean") return secret ? "true or false" : String(value);
  return typeof value;
}

/** A string as the operator wrote it, cut short so a pasted blob does not flood the terminal. */
export function quote(value: string): string {
  const short = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return JSON.stringify(short);
}
