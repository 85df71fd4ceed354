import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { configJsonSchema } from "../../src/config/json-schema.js";

/**
 * docs/reference.md is the project's contract and docs/platform-api.md the platform API as the
 * connector reads it. These tests keep them complete against the code: every config key of the
 * JSON Schema, every command and option, every audit action is named, and every section a code
 * comment cites exists.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const read = (name: string): Promise<string> => readFile(join(ROOT, name), "utf8");

/** Every property path of the JSON Schema (`routes[].match.severity`), parents before children. */
function schemaPaths(node: unknown, prefix = ""): string[] {
  if (typeof node !== "object" || node === null) return [];
  const out: string[] = [];
  const record = node as Record<string, unknown>;
  const properties = record["properties"];
  if (typeof properties === "object" && properties !== null) {
    for (const [key, child] of Object.entries(properties)) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      out.push(path);
      out.push(...schemaPaths(child, path));
    }
  }
  if (record["items"] !== undefined) out.push(...schemaPaths(record["items"], `${prefix}[]`));
  for (const alternatives of [record["anyOf"], record["oneOf"], record["allOf"]]) {
    if (Array.isArray(alternatives)) for (const a of alternatives) out.push(...schemaPaths(a, prefix));
  }
  return [...new Set(out)];
}

/** Whether the page names a key: as itself in backticks, or by its leaf in its parent's line. */
function namesKey(page: string, path: string): boolean {
  if (page.includes(`\`${path}\``)) return true;
  const cut = path.lastIndexOf(".");
  if (cut < 0) return false;
  const parent = path.slice(0, cut);
  const leaf = path.slice(cut + 1);
  return page.split("\n").some((line) => line.includes(`\`${parent}`) && line.includes(`\`${leaf}\``));
}

/** The TypeScript files under a folder of the repository, this test's own file left out. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => file !== import.meta.filename);
}

/** A citation as the page would say it: a comment's line breaks and `*` gutters become one space. */
function cited(text: string): string {
  return text.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, " ").replace(/\s*\.\.\.$/, "");
}

describe("docs/reference.md", () => {
  it("names every configuration key of the JSON Schema (`threatbridge config schema`), with its block", async () => {
    const page = await read("docs/reference.md");
    const all = schemaPaths(configJsonSchema());
    // The leaves: a block (`platform`, `routes`) is named by its keys.
    const paths = all.filter((p) => !all.some((q) => q.startsWith(`${p}.`) || q.startsWith(`${p}[]`)));
    expect(paths.length).toBeGreaterThan(80);
    expect(paths.filter((p) => !namesKey(page, p))).toEqual([]);
  });

  it("names every command with every one of its options", async () => {
    const page = await read("docs/reference.md");
    const missing: string[] = [];
    for (const { spec } of COMMANDS) {
      if (!page.includes(`\`threatbridge ${spec.name}`)) missing.push(spec.name);
      for (const option of Object.keys(spec.options)) {
        const row = page.split("\n").find((line) => line.includes(`\`threatbridge ${spec.name}`)) ?? "";
        if (!row.includes(`--${option}`) && !(option === "config" && row.includes("-c FILE")))
          missing.push(`${spec.name} --${option}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('lists every audit action the connector logs (contract, "Logs")', async () => {
    const page = await read("docs/reference.md");
    const observers = await read("src/sync/event-observers.ts");
    const block = /const AUDIT_ACTION[^{]*\{([\s\S]*?)\n\};/.exec(observers)?.[1] ?? "";
    const actions = new Set([...block.matchAll(/^\s+\w+: "(\w+)",/gm)].map((m) => m[1] ?? ""));
    // `feature` stands for the feature's own action name, written by the feature's write modules.
    actions.delete("feature");
    for (const file of await sourceFiles("src/sync/features")) {
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/type: "feature_written"[\s\S]{0,200}?action: "(\w+)"/g))
        actions.add(m[1] ?? "");
    }
    expect(actions.size).toBeGreaterThan(14);
    const listed = new Set([...page.matchAll(/^\| `(\w+)` +\|/gm)].map((m) => m[1]));
    expect([...actions].filter((a) => !listed.has(a))).toEqual([]);
  });

  it('every section a comment cites as (contract, "…") is a heading or a phrase of the page', async () => {
    const page = await read("docs/reference.md");
    const missing = new Set<string>();
    for (const dir of ["src", "test"]) {
      for (const file of await sourceFiles(dir)) {
        const text = await readFile(file, "utf8");
        for (const m of text.matchAll(/\(contract,? "([^"]+)"/g)) {
          const name = cited(m[1] ?? "");
          if (!page.includes(name)) missing.add(name);
        }
      }
    }
    expect([...missing]).toEqual([]);
  });
});

describe("docs/platform-api.md", () => {
  it('every section a comment cites as the spec\'s ("spec, "…"") is a heading or a phrase of the page', async () => {
    const page = await read("docs/platform-api.md");
    const missing = new Set<string>();
    let count = 0;
    for (const dir of ["src", "test"]) {
      for (const file of await sourceFiles(dir)) {
        const text = await readFile(file, "utf8");
        for (const m of text.matchAll(/\bspec(?:'s|,)? "([^"]+)"/g)) {
          count += 1;
          const name = cited(m[1] ?? "");
          if (!page.includes(name)) missing.add(name);
        }
      }
    }
    expect(count).toBeGreaterThan(20);
    expect([...missing]).toEqual([]);
  });

  it("says what the API leaves open and what the connector assumes, the threats page's array first", async () => {
    const page = await read("docs/platform-api.md");
    const section = page.split("## What the API leaves open and what the connector assumes")[1] ?? "";
    expect(section).toContain("the array property of a `GET /v1/threats` page");
    expect(section).toContain("`threats`, `items` and `data` all work");
    expect(section).toContain("`fields` block");
  });
});
