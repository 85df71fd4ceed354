import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { lowerBounds, satisfies } from "./node-range.js";

/**
 * The supported Node range is true: `engines` claims only versions that every locked
 * dependency supports (so `npm ci` warns EBADENGINE on none of them), no end-of-life line, and CI
 * installs and tests on each major it claims.
 */

const ROOT = resolve(import.meta.dirname, "../..");

const Pkg = z.object({
  engines: z.object({ node: z.string() }),
  devDependencies: z.record(z.string(), z.string()),
});
const Lock = z.object({
  packages: z.record(z.string(), z.object({ engines: z.unknown().optional() }).loose()),
});

async function pkg(): Promise<z.infer<typeof Pkg>> {
  return Pkg.parse(JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")));
}

describe("the range reader (npm's semver forms found in the lock file)", () => {
  it("reads caret, comparison, bare-major and spaced forms as npm does", () => {
    expect(satisfies("20.18.0", ">=22")).toBe(false);
    expect(satisfies("22.13.0", "^20.19.0 || ^22.13.0 || >=23.5.0")).toBe(true);
    expect(satisfies("22.12.0", "^20.19.0 || ^22.13.0 || >=23.5.0")).toBe(false);
    expect(satisfies("24.0.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(true);
    expect(satisfies("23.0.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(false);
    expect(satisfies("22.0.0", "18 || 20 || >=22")).toBe(true);
    expect(satisfies("21.0.0", "18 || 20 || >=22")).toBe(false);
    expect(satisfies("22.0.0", ">= 20")).toBe(true);
    expect(satisfies("20.18.0", ">=20.18.1")).toBe(false);
    expect(satisfies("20.19.0", ">=20.18.0 <21 || >=22")).toBe(true);
    expect(lowerBounds("^22.13.0 || >=24.0.0")).toEqual([
      [22, 13, 0],
      [24, 0, 0],
    ]);
  });
});

describe("supported Node versions", () => {
  it("engines.node claims no end-of-life line (Node 20 ended in April 2026) and both LTS lines 22 and 24", async () => {
    const range = (await pkg()).engines.node;
    expect(satisfies("20.19.6", range)).toBe(false);
    expect(satisfies("22.23.0", range)).toBe(true);
    expect(satisfies("24.9.0", range)).toBe(true);
  });

  it("every locked dependency supports the lowest version of each claimed line (npm ci: no EBADENGINE)", async () => {
    const range = (await pkg()).engines.node;
    const lock = Lock.parse(JSON.parse(await readFile(join(ROOT, "package-lock.json"), "utf8")));
    const unsupported: string[] = [];
    for (const low of lowerBounds(range)) {
      for (const [name, entry] of Object.entries(lock.packages)) {
        const node = z.object({ node: z.string() }).safeParse(entry.engines);
        if (name === "" || !node.success) continue;
        if (!satisfies(low, node.data.node))
          unsupported.push(`${name} (${node.data.node}) on ${low.join(".")}`);
      }
    }
    expect(unsupported).toEqual([]);
  });

  it("CI installs and tests on exactly the majors that engines claims", async () => {
    const range = (await pkg()).engines.node;
    const script = await readFile(join(ROOT, ".ci", "run"), "utf8");
    const majors = /^SUPPORTED_MAJORS=\(([\d ]+)\)/m.exec(script)?.[1]?.trim().split(/\s+/).map(Number);
    expect(majors).toEqual(lowerBounds(range).map((v) => v[0]));
  });

  it("@types/node is the lowest claimed major: the code uses no Node API newer than what it runs on", async () => {
    const p = await pkg();
    const lowest = Math.min(...lowerBounds(p.engines.node).map((v) => v[0]));
    expect(/^\^?(\d+)\./.exec(p.devDependencies["@types/node"] ?? "")?.[1]).toBe(String(lowest));
  });
});
