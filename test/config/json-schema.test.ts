import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { format, resolveConfig } from "prettier";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/index.js";
import { minimalPlus, parse } from "./helpers.js";

const COMMITTED = new URL("../../config/threatbridge.schema.json", import.meta.url);
const SHIPPED_EXAMPLE = readFileSync(new URL("../../config/threatbridge.yaml", import.meta.url), "utf8");
const CONTRACT_EXAMPLE = readFileSync(new URL("./fixtures/contract-example.yaml", import.meta.url), "utf8");

function compile(): ReturnType<Ajv2020["compile"]> {
  // strict: an unknown keyword or format, or a type-less constraint, fails here. (strictRequired would
  // also refuse `oneOf: [{ required: [token] }, ...]`, a plain JSON Schema idiom.)
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormatsModule.default(ajv);
  return ajv.compile(configJsonSchema());
}

// Compiled once: ajv compiling a schema this size takes a noticeable part of a second.
const validate = compile();

function errorsOf(data: unknown): string[] {
  validate(data);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${JSON.stringify(e.params)}`);
}

describe("the config's JSON Schema (`threatbridge config schema`)", () => {
  it("is a draft 2020-12 schema that ajv compiles in strict mode, with $id, title and descriptions", () => {
    const schema = configJsonSchema();
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toMatch(/^https:\/\//);
    expect(schema.title).toBe("threatbridge configuration");
    expect(validate).toBeTypeOf("function");
    const text = JSON.stringify(schema);
    expect(text).toContain("the first matching rule wins");
    expect(text).toContain("a sixth leading field means seconds");
  });

  it("makes keys with defaults optional: only platform and github are required", () => {
    expect(configJsonSchema().required).toEqual(["platform", "github"]);
  });

  it("accepts the validated contract example and the shipped example", () => {
    expect(errorsOf(parse(CONTRACT_EXAMPLE).config)).toEqual([]);
    expect(errorsOf(parse(SHIPPED_EXAMPLE).config)).toEqual([]);
  });

  it("accepts the files as an editor sees them, before ${VAR} interpolation", () => {
    expect(errorsOf(parseYaml(SHIPPED_EXAMPLE))).toEqual([]);
    expect(errorsOf(parseYaml(CONTRACT_EXAMPLE))).toEqual([]);
    expect(errorsOf(parseYaml(minimalPlus("health:", "  port: ${PORT:-9464}")))).toEqual([]);
  });

  it("rejects an unknown key, at the top and nested", () => {
    const config: unknown = parseYaml(minimalPlus("githb: {}", "health: { port: 1, hots: x }"));
    expect(errorsOf(config).sort()).toEqual([
      ' additionalProperties {"additionalProperty":"githb"}',
      '/health additionalProperties {"additionalProperty":"hots"}',
    ]);
  });

  it("rejects what the loader rejects: a negative budget, both token and app, accepted without a note", () => {
    const budget: unknown = parseYaml(minimalPlus("  write_budget: { per_hour: -1 }"));
    expect(errorsOf(budget).join("\n")).toContain("/github/write_budget/per_hour minimum");
    const both: unknown = parseYaml(minimalPlus("  app: { app_id: 1, private_key: k }"));
    expect(errorsOf(both).join("\n")).toContain("/github oneOf");
    const neither: unknown = parseYaml(minimalPlus().replace("  token: ${GITHUB_TOKEN}\n", ""));
    expect(errorsOf(neither).join("\n")).toContain("/github oneOf");
    const accepted: unknown = parseYaml(minimalPlus("verdicts: { reopened: { status: accepted } }"));
    expect(errorsOf(accepted).join("\n")).toContain("/verdicts/reopened required");
  });

  // To regenerate after a change to src/config/schema.ts:
  //   UPDATE_CONFIG_SCHEMA=1 npx vitest run test/config/json-schema.test.ts
  it("config/threatbridge.schema.json (for editors) is current", async () => {
    if (process.env["UPDATE_CONFIG_SCHEMA"] === "1") {
      const path = fileURLToPath(COMMITTED);
      const options = await resolveConfig(path);
      writeFileSync(path, await format(JSON.stringify(configJsonSchema()), { ...options, filepath: path }));
    }
    const committed: unknown = JSON.parse(readFileSync(COMMITTED, "utf8"));
    expect(committed).toEqual(configJsonSchema());
  });
});
