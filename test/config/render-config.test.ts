import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/config/index.js";
import { errorOf, minimalPlus, parse, problemAt } from "./helpers.js";

/**
 * Contract, "The conversation back": `render: { related_assets: N }` (0: none; absent: off). Config
 * errors name file, line and key; the key is in the JSON Schema and in the shipped example. The
 * minimal file ends on line 8, so the first extra line is line 9.
 */

describe("render.related_assets", () => {
  it("is off when left out, and reads as written", () => {
    expect(parse(minimalPlus()).config.render).toBeUndefined();
    expect(parse(minimalPlus("render:", "  related_assets: 10")).config.render).toEqual({
      related_assets: 10,
    });
    expect(parse(minimalPlus("render:", "  related_assets: 0")).config.render).toEqual({ related_assets: 0 });
  });

  it("a negative, fractional or too large N, or an unknown key, is an error at its line", () => {
    for (const bad of ["-1", "2.5", "101", "ten"]) {
      const problem = problemAt(
        errorOf(minimalPlus("render:", `  related_assets: ${bad}`)),
        "render.related_assets",
      );
      expect(problem.line, bad).toBe(10);
    }
    const unknown = errorOf(minimalPlus("render:", "  related_asset: 10"));
    expect(unknown.message).toMatch(/related_assets/);
  });

  it("is in the JSON Schema, a whole number 0..100 (or a ${VAR} reference)", () => {
    const schema = JSON.stringify(configJsonSchema());
    expect(schema).toContain('"related_assets":{');
    const render = (
      configJsonSchema()["properties"] as Record<string, { properties?: Record<string, unknown> }>
    )["render"];
    expect(render?.properties?.["related_assets"]).toMatchObject({
      anyOf: expect.arrayContaining([{ type: "integer", minimum: 0, maximum: 100 }]) as unknown,
    });
  });

  it("config/threatbridge.yaml's commented block validates once uncommented", () => {
    const text = readFileSync(new URL("../../config/threatbridge.yaml", import.meta.url), "utf8");
    const lines = text.split("\n");
    const start = lines.indexOf("# render:");
    expect(start).toBeGreaterThan(0);
    const block: string[] = [];
    for (let i = start; i < lines.length && lines[i]?.startsWith("# "); i += 1)
      block.push(lines[i]?.slice(2) ?? "");
    expect(parse(minimalPlus(...block)).config.render).toEqual({ related_assets: 10 });
  });
});
