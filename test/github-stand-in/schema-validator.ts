import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

/**
 * The stand-in's answers are checked against the JSON schemas of GitHub's published REST
 * OpenAPI description (a subset extracted by scripts/extract-github-schemas.mjs), so that a
 * connector that works against the stand-in reads the same fields it will get from GitHub.
 */
const SCHEMAS_ID = "https://threatbridge.test/github-schemas.json";
export const fixture: unknown = JSON.parse(
  readFileSync(new URL("./fixtures/github-schemas.json", import.meta.url), "utf8"),
);

/**
 * OpenAPI 3.0's `nullable` as JSON Schema (what openapi-schema-to-json-schema does): Ajv understands
 * it only beside `type`, and keeps an `enum` without null closed (issue `state_reason`, which GitHub
 * answers as null for open issues). So: `anyOf` gets a `{"type": "null"}` branch, `enum` a null.
 */
function nullableAnyOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableAnyOf);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, nullableAnyOf(v)]),
  );
  if (out["nullable"] === true && Array.isArray(out["enum"]) && !out["enum"].includes(null)) {
    out["enum"] = [...out["enum"], null];
  }
  if (out["nullable"] === true && out["type"] === undefined && Array.isArray(out["anyOf"])) {
    out["anyOf"] = [...out["anyOf"], { type: "null" }];
    delete out["nullable"];
  }
  return out;
}

export function validatorFor(): (schema: string, data: unknown) => string[] {
  // OpenAPI 3.0 schema objects: `nullable` is understood by Ajv; `example`/`discriminator` are not JSON Schema.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  const schemas = nullableAnyOf(fixture);
  if (typeof schemas !== "object" || schemas === null) throw new Error("fixture is not an object");
  ajv.addSchema({ ...schemas, $id: SCHEMAS_ID });
  return (schema, data) => {
    const validate = ajv.getSchema(`${SCHEMAS_ID}#/components/schemas/${schema}`);
    if (!validate) throw new Error(`no schema ${schema}`);
    return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`);
  };
}
