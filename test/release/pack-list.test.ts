import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { assertBuilt } from "../e2e/world.js";

/**
 * The npm tarball ships what runs and nothing else: the bundled CLI (dist/cli.js and the chunks it
 * loads), the example config and its schema, and the release files; no source map, no tsc output
 * that the CLI never loads, no sources or tests; at most 2.5 MB unpacked. scripts/tarball-smoke.sh
 * installs the real tarball and runs `demo`, `demo --workflow` and `config validate` from it.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const MAX_UNPACKED_BYTES = 2_500_000;

const PackReport = z.array(
  z.object({
    unpackedSize: z.number(),
    files: z.array(z.object({ path: z.string(), size: z.number() })),
  }),
);

/** `npm pack --dry-run` of the current build (no prepack: the test runs after `npm run build`). */
function packList(): { unpackedSize: number; paths: string[] } {
  const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(run.status, run.stderr).toBe(0);
  const [report] = PackReport.parse(JSON.parse(run.stdout));
  if (report === undefined) throw new Error("npm pack --dry-run reported no package");
  return { unpackedSize: report.unpackedSize, paths: report.files.map((f) => f.path) };
}

/** The files dist/cli.js loads, following its static and dynamic imports of relative paths. */
function cliClosure(): string[] {
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = readFileSync(join(ROOT, path), "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"]+)"/g)) {
      const next = join(path, "..", m[1] ?? "");
      visit(next);
    }
  };
  visit("dist/cli.js");
  return [...seen];
}

describe("the npm tarball", () => {
  it("has no source map and stays within 2.5 MB unpacked", () => {
    assertBuilt();
    const { unpackedSize, paths } = packList();
    expect(paths.filter((p) => p.endsWith(".map"))).toEqual([]);
    expect(unpackedSize).toBeLessThanOrEqual(MAX_UNPACKED_BYTES);
  });

  it("ships the bundled CLI with every chunk it loads, the example config and the release files, and nothing else", () => {
    assertBuilt();
    const { paths } = packList();
    const closure = cliClosure();
    expect(closure.length).toBeGreaterThan(5);
    expect(paths).toEqual(expect.arrayContaining(closure));
    expect(paths).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "SECURITY.md",
        "config/threatbridge.yaml",
        "config/threatbridge.schema.json",
      ]),
    );
    // Under dist/ only the bundle: tsc's per-module output is for the tests, the bench and the demo's imports.
    expect(
      paths.filter((p) => p.startsWith("dist/") && p !== "dist/cli.js" && !p.startsWith("dist/chunks/")),
    ).toEqual([]);
    expect(paths.filter((p) => /^(src|test|bench|scripts|deploy|docs)\//.test(p))).toEqual([]);
  });
});
