import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/json-schema.js";

/**
 * Every secret of the config may come from a file (`<key>_file`, docs/reference.md, "Secrets"):
 * the operators' guide, the README and the reference name every one of them, as the schema has them.
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** The secret keys: each key of the schema that has a `<key>_file` twin, as a dotted path. */
function secretKeys(node: unknown, prefix = ""): string[] {
  if (typeof node !== "object" || node === null) return [];
  const out: string[] = [];
  const properties = (node as Record<string, unknown>)["properties"];
  if (typeof properties === "object" && properties !== null) {
    const keys = Object.keys(properties);
    for (const key of keys) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      if (key.endsWith("_file") && keys.includes(key.slice(0, -"_file".length))) out.push(path.slice(0, -5));
      out.push(...secretKeys((properties as Record<string, unknown>)[key], path));
    }
  }
  for (const alternatives of ["anyOf", "oneOf", "allOf"]) {
    const list = (node as Record<string, unknown>)[alternatives];
    if (Array.isArray(list)) for (const a of list) out.push(...secretKeys(a, prefix));
  }
  return [...new Set(out)];
}

describe("secret keys in the docs", () => {
  it("the schema's secrets are the five the docs name", () => {
    expect(secretKeys(configJsonSchema()).sort()).toEqual([
      "github.app.private_key",
      "github.token",
      "github.webhook.previous_secrets",
      "github.webhook.secret",
      "platform.client_secret",
    ]);
  });

  it("docs/operations.md's Secrets section and docs/reference.md name every secret key", async () => {
    const operations = await readFile(join(ROOT, "docs/operations.md"), "utf8");
    const section = operations.split("### Secrets")[1]?.split("\n## ")[0] ?? "";
    const reference = await readFile(join(ROOT, "docs/reference.md"), "utf8");
    const referenceSection = reference.split("### Secrets")[1]?.split("\n## ")[0] ?? "";
    for (const key of secretKeys(configJsonSchema())) {
      expect(section, `docs/operations.md, Secrets: ${key}`).toContain(`\`${key}\``);
      expect(referenceSection, `docs/reference.md, Secrets: ${key}`).toContain(`\`${key}\``);
    }
  });

  it("the README names each secret's file form", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    for (const key of secretKeys(configJsonSchema())) expect(readme).toContain(`\`${key}_file\``);
  });
});
