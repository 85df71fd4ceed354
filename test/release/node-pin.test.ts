import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isSupportedNode } from "../../src/cli/node-version.js";

/**
 * How a stranger gets the right Node: `.nvmrc` names a supported major (nvm and fnm read it), and
 * `.npmrc` makes npm refuse an unsupported Node at install time with the engine's reason, instead
 * of warning and going on (docs/reference.md, "Node").
 */

const ROOT = resolve(import.meta.dirname, "../..");
const read = (name: string): Promise<string> => readFile(join(ROOT, name), "utf8");

describe("the Node a checkout asks for", () => {
  it(".nvmrc names Node 22, a major package.json's engines supports", async () => {
    const pinned = (await read(".nvmrc")).trim();
    expect(pinned).toBe("22");
    const pkg = JSON.parse(await read("package.json")) as { engines: { node: string } };
    expect(pkg.engines.node).toBe("^22.13.0 || >=24.0.0");
    // nvm resolves a bare major to its newest release, which is past 22.13.
    expect(isSupportedNode(`${pinned}.13.0`)).toBe(true);
  });

  it(".npmrc sets engine-strict, so that npm ci on Node 20 fails at once with EBADENGINE", async () => {
    const settings = (await read(".npmrc"))
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith(";"));
    expect(settings).toContain("engine-strict=true");
  });

  it("the README says how to get Node 22 or 24, and that the image needs none", async () => {
    const readme = await read("README.md");
    expect(readme).toContain("nvm install");
    expect(readme).toContain("fnm");
    expect(readme).toMatch(/image[^.]*brings its own Node/);
  });
});
