import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = resolve("scripts/comment-ratio.mjs");
const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A src/ folder of .ts files (name → text) in a fresh directory. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "comment-ratio-"));
  made.push(dir);
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, "src", name), text);
  return dir;
}

function run(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { cwd, encoding: "utf8" });
  return { code: result.status, out: result.stdout + result.stderr };
}

// 4 comment lines (`//`, `/**`, ` *`, ` */` after white space count; a trailing comment does not)
// of 9 lines in two files: 44.4 %.
const FILES = {
  "a.ts": "// why a is so\nexport const a = 1; // trailing, not a comment line\nexport const b = 2;\n",
  "deep/b.ts": "/**\n * what b promises\n */\nexport const c = 3;\nexport const d = 4;\nconst e = '*/';\n",
};

describe("comment-ratio: comment lines over all src .ts lines", () => {
  it("counts lines that start with //, /* or * after white space, in every folder below src", () => {
    const { code, out } = run(tree(FILES), "--max", "50");
    expect(out).toContain("comment lines in src: 4 of 9 (44.4 %), at most 50 %");
    expect(code).toBe(0);
  });

  it("fails above the limit (13 % by default) and says so", () => {
    const { code, out } = run(tree(FILES));
    expect(out).toContain("comment lines in src: 4 of 9 (44.4 %), at most 13 %: too many");
    expect(code).toBe(1);
  });

  it("passes at or under the limit", () => {
    const dir = tree({ "a.ts": "// one\n" + "export const x = 1;\n".repeat(9) });
    expect(run(dir, "--max", "10").code).toBe(0);
    expect(run(dir, "--max", "9").code).toBe(1);
  });

  it("refuses a limit that is not a percentage", () => {
    expect(run(tree(FILES), "--max", "lots").code).toBe(2);
  });
});
