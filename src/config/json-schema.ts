import { z } from "zod";
import { isRecord } from "../shared/json.js";
import { ConfigSchema } from "./schema.js";
import { schemaAt } from "./schema-walk.js";
import { AssetNameGlob, GLOB_PATTERN, Where, WHERE_PATH_PATTERN } from "./routes.js";

/**
 * The configuration's JSON Schema (draft 2020-12), generated from `ConfigSchema` so it never
 * drifts: `threatbridge config schema` prints it, and `config/threatbridge.schema.json` is a copy
 * for editors (a test keeps the copy current). io "input": keys with defaults are optional.
 *
 * Regenerate the committed copy after changing `schema.ts`:
 *   UPDATE_CONFIG_SCHEMA=1 npx vitest run test/config/json-schema.test.ts
 */

const CONFIG_SCHEMA_ID = "https://threatbridge.dev/schemas/threatbridge.schema.json";

/** A value that still holds a `${VAR}` reference: an editor sees the file before interpolation. */
const ENV_REFERENCE = {
  type: "string",
  pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}",
  description: "${VAR} or ${VAR:-default}, replaced from the environment before validation",
};

const LEAF_TYPES = new Set(["string", "integer", "number", "boolean"]);

export function configJsonSchema(): Record<string, unknown> {
  const github = ConfigSchema.shape.github;
  const platform = ConfigSchema.shape.platform;
  const app = schemaAt(ConfigSchema, ["github", "app"]);
  const verdict = schemaAt(ConfigSchema, ["verdicts", "reopened"]);
  const webhook = schemaAt(ConfigSchema, ["github", "webhook"]);
  const generated = z.toJSONSchema(ConfigSchema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    // The schema's refinements have no JSON form of their own; these say the same in JSON Schema.
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === github) {
        jsonSchema.oneOf = [{ required: ["token"] }, { required: ["token_file"] }, { required: ["app"] }];
      } else if (zodSchema === platform) {
        eitherKeyOrFile(jsonSchema, "client_secret");
      } else if (zodSchema === app) {
        eitherKeyOrFile(jsonSchema, "private_key");
      } else if (zodSchema === webhook) {
        // A path switches the webhook on, and then its secret is due in one of its two forms.
        jsonSchema.allOf = [
          { not: { required: ["secret", "secret_file"] } },
          { not: { required: ["previous_secrets", "previous_secrets_file"] } },
          {
            if: { required: ["path"] },
            then: { oneOf: [{ required: ["secret"] }, { required: ["secret_file"] }] },
          },
        ];
      } else if (zodSchema === AssetNameGlob) {
        jsonSchema.pattern = GLOB_PATTERN;
      } else if (zodSchema === Where) {
        jsonSchema.propertyNames = { type: "string", pattern: WHERE_PATH_PATTERN };
        jsonSchema.minProperties = 1;
      } else if (zodSchema === verdict) {
        jsonSchema.if = { properties: { status: { const: "accepted" } }, required: ["status"] };
        jsonSchema.then = {
          required: ["status_note"],
          properties: { status_note: { type: "string", pattern: "\\S" } },
        };
      }
    },
  });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: CONFIG_SCHEMA_ID,
    title: "threatbridge configuration",
    description:
      "Configuration of threatbridge, the connector from a security platform's threats to GitHub issues. " +
      "${VAR} and ${VAR:-default} in values are replaced from the environment before validation.",
    ...allowEnvReferences(generated),
  };
}

/** A secret key is required as itself or as `<key>_file`, exactly one of the two (contract). */
function eitherKeyOrFile(jsonSchema: Record<string, unknown>, key: string): void {
  if (Array.isArray(jsonSchema.required))
    jsonSchema.required = jsonSchema.required.filter((name) => name !== key);
  jsonSchema.oneOf = [{ required: [key] }, { required: [`${key}_file`] }];
}

/**
 * Every scalar value may also be a string with a `${VAR}` reference, so that the shipped example
 * (`base_url: ${PLATFORM_BASE_URL:-http://127.0.0.1:8080}`, `port: ${PORT}`) shows no false
 * errors in an editor. Description and default stay outside the `anyOf`, where editors show them.
 */
function allowEnvReferences(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...node };
  if (isRecord(node.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, child]) => [
        key,
        isRecord(child) ? allowEnvReferences(child) : child,
      ]),
    );
  }
  if (isRecord(node.items)) out.items = allowEnvReferences(node.items);
  if (!isLeaf(node) || acceptsAnyString(node)) return out;
  const { description, default: fallback, anyOf, ...rest } = out;
  const options = Array.isArray(anyOf) ? [...anyOf, ENV_REFERENCE] : [rest, ENV_REFERENCE];
  return {
    ...(description === undefined ? {} : { description }),
    ...(fallback === undefined ? {} : { default: fallback }),
    anyOf: options,
  };
}

/** A plain string (no enum, pattern or format) takes a reference as it is. */
function acceptsAnyString(node: Record<string, unknown>): boolean {
  return (
    node.type === "string" &&
    node.enum === undefined &&
    node.pattern === undefined &&
    node.format === undefined
  );
}

function isLeaf(node: Record<string, unknown>): boolean {
  if (Array.isArray(node.enum)) return true;
  if (typeof node.type === "string") return LEAF_TYPES.has(node.type);
  return Array.isArray(node.anyOf) && node.anyOf.every((option) => isRecord(option) && isLeaf(option));
}
