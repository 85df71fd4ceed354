import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The repository stands alone: no tracked file names a path outside it. A clone (or the project's
 * page) has the reference in docs/reference.md and the platform API in docs/platform-api.md; a
 * relative path that climbs to a `shared` folder must land on the project's own (src/shared), and
 * the names of the documents the project was first written from never appear.
 */

const ROOT = resolve(import.meta.dirname, "../..");
// Spelled in pieces, so that this file does not name them itself.
const SHARED = ["..", "shared"].join("/");
const FORBIDDEN = [["shared", "contract.md"].join("/"), ["seeds", "000_"].join("/")];

function trackedTextFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" });
  return out
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile())
    .filter((file) => !readFileSync(join(ROOT, file)).subarray(0, 8000).includes(0));
}

/** Every outside path a file names: a forbidden name, or a `../shared` that leaves the repository. */
function outsidePaths(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: string[] = [];
  for (const name of FORBIDDEN) if (text.includes(name)) found.push(name);
  for (const m of text.matchAll(/((?:\.\.\/)+)shared\b/g)) {
    const folder = resolve(dirname(join(ROOT, file)), `${m[1] ?? ""}shared`);
    const inside = !relative(ROOT, folder).startsWith("..");
    // An import of the project's own src/shared resolves to that folder; anything else is outside.
    if (!inside || !existsSync(folder)) found.push(`${m[0]} (${relative(ROOT, folder)})`);
  }
  return found;
}

describe("the repository stands alone", () => {
  it(`no tracked file names ${SHARED}, ${FORBIDDEN.join(" or ")} outside the repository`, () => {
    const files = trackedTextFiles();
    expect(files.length).toBeGreaterThan(300);
    const offenders = files
      .map((file) => ({ file, paths: outsidePaths(file) }))
      .filter((o) => o.paths.length > 0);
    expect(offenders).toEqual([]);
  });

  it("imports of the project's own src/shared are not taken for outside paths", () => {
    // src/sync/features/notes/section.ts imports src/shared/json.js by a relative path three folders up.
    expect(readFileSync(join(ROOT, "src/sync/features/notes/section.ts"), "utf8")).toContain(
      `../../${SHARED}/json.js`,
    );
    expect(outsidePaths("src/sync/features/notes/section.ts")).toEqual([]);
  });
});
