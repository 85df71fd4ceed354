import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `npm run demo` builds only when the build is older than its sources (scripts/build-if-stale.mjs):
 * a fresh build starts the demo at once, a changed source file is never run from an older build.
 */

const SCRIPT = resolve(import.meta.dirname, "../../scripts/build-if-stale.mjs");
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A project root with one source file and, unless told otherwise, a build; times in seconds. */
function project(times: { source: number; built?: number }): string {
  const root = mkdtempSync(join(tmpdir(), "threatbridge-stale-"));
  roots.push(root);
  mkdirSync(join(root, "src", "cli"), { recursive: true });
  writeFileSync(join(root, "src", "cli", "main.ts"), "export {};\n");
  utimesSync(join(root, "src", "cli", "main.ts"), times.source, times.source);
  if (times.built !== undefined) {
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "cli.js"), "\n");
    utimesSync(join(root, "dist", "cli.js"), times.built, times.built);
  }
  return root;
}

function check(root: string): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [SCRIPT, "--check"], {
    env: { ...process.env, THREATBRIDGE_ROOT: root },
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout.trim() };
}

describe("npm run demo: build only when stale", () => {
  it("a build newer than every source is fresh: no rebuild", () => {
    expect(check(project({ source: 1_000_000, built: 2_000_000 }))).toEqual({ status: 0, stdout: "fresh" });
  });

  it("a source changed after the build makes it stale, naming the file", () => {
    expect(check(project({ source: 3_000_000, built: 2_000_000 }))).toEqual({
      status: 3,
      stdout: "stale: src/cli/main.ts changed since the build",
    });
  });

  it("no build at all is stale", () => {
    expect(check(project({ source: 1_000_000 }))).toEqual({ status: 3, stdout: "stale: no dist/cli.js yet" });
  });

  it("package.json's demo script goes through it", () => {
    const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["demo"]).toBe("node scripts/build-if-stale.mjs && node dist/cli.js demo");
  });
});
