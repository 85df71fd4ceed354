import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve("scripts/import-layers.mjs");
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A tree of files (path → text) in a fresh directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "import-layers-"));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** `--check PAGE` run in `cwd`: its exit code and what it said. */
function check(cwd: string, page = "page.md"): { code: number | null; out: string } {
  const run = spawnSync(process.execPath, [SCRIPT, "--check", page], { cwd, encoding: "utf8" });
  return { code: run.status, out: run.stdout + run.stderr };
}

const fence = "```";

// app imports core (from two files), core imports base; base imports app once: the loop is cut
// there, so that import runs back up against the flow.
const CODE = {
  "src/app/main.ts": 'import { core } from "../core/core.js";\nexport const main = core;\n',
  "src/app/other.ts": 'import { core } from "../core/core.js";\nexport const other = core;\n',
  "src/core/core.ts": 'import { base } from "../base.js";\nexport const core = base;\n',
  "src/base.ts":
    'import type { Main } from "./app/types.js";\nexport const base = 1;\nexport type B = Main;\n',
  "src/app/types.ts": "export type Main = number;\n",
};

function page(floors: string[], backUp: string[]): string {
  return [
    "# Layers",
    "",
    `${fence}layers src`,
    ...floors,
    fence,
    "",
    `${fence}layers-back-up src`,
    ...backUp,
    fence,
    "",
  ].join("\n");
}

describe("import-layers --check: the page's layer order against the imports", () => {
  it("passes when the page states the floors the imports make and lists the import back up", () => {
    const dir = tree({ ...CODE, "page.md": page(["app", "core", "base.ts"], ["base.ts -> app/types.ts"]) });
    const { code, out } = check(dir);
    expect(out).toContain("the layers of src match its imports (3 floors)");
    expect(code).toBe(0);
  });

  it("fails when the page puts a room on the wrong floor, and prints the blocks as the code has them", () => {
    const dir = tree({ ...CODE, "page.md": page(["app", "base.ts", "core"], ["base.ts -> app/types.ts"]) });
    const { code, out } = check(dir);
    expect(code).toBe(1);
    expect(out).toContain("room core stands on floor 2 from the bottom, the page says 1");
    expect(out).toContain(`${fence}layers src\napp\ncore\nbase.ts\n${fence}`);
  });

  it("fails when a room of the code is missing from the page or the page names one the code lacks", () => {
    const dir = tree({ ...CODE, "page.md": page(["app", "core", "gone"], ["base.ts -> app/types.ts"]) });
    const { code, out } = check(dir);
    expect(code).toBe(1);
    expect(out).toContain("room base.ts is not on the page");
    expect(out).toContain("room gone is on the page but not in the code");
  });

  it("fails on an import back up the page does not list, and on a listed one the code no longer has", () => {
    const unlisted = tree({ ...CODE, "page.md": page(["app", "core", "base.ts"], []) });
    expect(check(unlisted).out).toContain("import back up not on the page: base.ts -> app/types.ts");
    expect(check(unlisted).code).toBe(1);
    const stale = tree({
      ...CODE,
      "page.md": page(["app", "core", "base.ts"], ["base.ts -> app/types.ts", "core/core.ts -> app/main.ts"]),
    });
    expect(check(stale).out).toContain(
      "the page lists core/core.ts -> app/main.ts, which the code no longer has",
    );
    expect(check(stale).code).toBe(1);
  });

  it("fails when the page states no layer order at all", () => {
    const dir = tree({ ...CODE, "page.md": "# Layers\n\nNone stated.\n" });
    expect(check(dir).code).toBe(1);
  });

  it("docs/architecture.md states the layers of src and src/sync as their imports make them", () => {
    const { code, out } = check(resolve("."), "docs/architecture.md");
    expect(out).toContain("the layers of src match its imports");
    expect(out).toContain("the layers of src/sync match its imports");
    expect(code).toBe(0);
  });
});
