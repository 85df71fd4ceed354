import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeOf } from "../../src/cli/place.js";

/** Where the CLI runs decides how the demo's last words spell the next commands. */

let checkout = "";
let installed = "";

beforeAll(async () => {
  checkout = await mkdtemp(join(tmpdir(), "threatbridge-place-"));
  await mkdir(join(checkout, "src", "cli"), { recursive: true });
  await writeFile(join(checkout, "tsconfig.json"), "{}");
  installed = await mkdtemp(join(tmpdir(), "threatbridge-place-"));
  await mkdir(join(installed, "dist"));
});

afterAll(async () => {
  await rm(checkout, { recursive: true, force: true });
  await rm(installed, { recursive: true, force: true });
});

describe("where the CLI runs", () => {
  it("a checkout (sources beside dist/): node dist/cli.js, and whether the user stands in its root", () => {
    const script = join(checkout, "dist", "cli.js");
    expect(placeOf({ root: checkout, script, cwd: checkout, env: {} })).toEqual({
      kind: "checkout",
      root: checkout,
      here: true,
    });
    expect(placeOf({ root: checkout, script, cwd: tmpdir(), env: {} })).toMatchObject({ here: false });
  });

  it("an installed package run through its bin link on the PATH: threatbridge", () => {
    expect(
      placeOf({ root: installed, script: "/usr/local/bin/threatbridge", cwd: tmpdir(), env: {} }),
    ).toEqual({ kind: "installed", command: "threatbridge" });
  });

  it("an installed package run from node_modules/.bin (npx, a project's dependency): npx threatbridge", () => {
    const script = join("/home/me/project", "node_modules", ".bin", "threatbridge");
    expect(placeOf({ root: installed, script, cwd: "/home/me/project", env: {} })).toEqual({
      kind: "installed",
      command: "npx threatbridge",
    });
  });

  it("the container image says so in its environment (THREATBRIDGE_IMAGE=1, set by the Dockerfile)", () => {
    expect(
      placeOf({ root: installed, script: "/app/dist/cli.js", cwd: "/app", env: { THREATBRIDGE_IMAGE: "1" } }),
    ).toEqual({ kind: "image" });
  });
});

describe("the image", () => {
  it("its final stage sets THREATBRIDGE_IMAGE=1, so the demo run in it names docker commands", async () => {
    const dockerfile = await readFile(join(import.meta.dirname, "../../Dockerfile"), "utf8");
    const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(final).toMatch(/^ENV THREATBRIDGE_IMAGE=1$/m);
  });
});
