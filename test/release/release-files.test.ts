import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * What a stranger needs beside the code: the licence package.json names, how to report a
 * vulnerability and what is supported, and what changed; all in the npm tarball too
 * (scripts/tarball-smoke.sh checks the packed file list).
 */

const ROOT = resolve(import.meta.dirname, "../..");
const read = (name: string): Promise<string> => readFile(join(ROOT, name), "utf8");
const Pkg = z.object({
  license: z.string(),
  files: z.array(z.string()),
  engines: z.object({ node: z.string() }),
});

describe("release files", () => {
  it("LICENSE is the full Apache License 2.0, as package.json's license says", async () => {
    const pkg = Pkg.parse(JSON.parse(await read("package.json")));
    expect(pkg.license).toBe("Apache-2.0");
    const text = await read("LICENSE");
    expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    // All nine sections of the terms and the appendix: the full text, not a pointer to it.
    for (let section = 1; section <= 9; section += 1)
      expect(text).toMatch(new RegExp(`\\n\\s*${section}\\. [A-Z]`));
    expect(text).toContain("END OF TERMS AND CONDITIONS");
    expect(text).toContain("APPENDIX: How to apply the Apache License to your work.");
    expect(text.split("\n").length).toBeGreaterThan(190);
  });

  it("SECURITY.md says how to report privately and which versions and Node majors get fixes", async () => {
    const text = await read("SECURITY.md");
    expect(text).toMatch(/## Reporting a vulnerability/);
    expect(text).toMatch(/privately/i);
    expect(text).toMatch(/## Supported versions/);
    expect(text).toMatch(/latest minor/i);
    // The Node majors it names are package.json's engines.
    const pkg = Pkg.parse(JSON.parse(await read("package.json")));
    expect(pkg.engines.node).toBe("^22.13.0 || >=24.0.0");
    expect(text).toContain("22 (from 22.13) and 24");
  });

  it("CHANGELOG.md follows Keep a Changelog: an [Unreleased] section first, then dated versions", async () => {
    const text = await read("CHANGELOG.md");
    expect(text).toContain("https://keepachangelog.com/");
    const versions = [...text.matchAll(/^## \[([^\]]+)\](.*)$/gm)].map((m) => [m[1], (m[2] ?? "").trim()]);
    expect(versions[0]).toEqual(["Unreleased", ""]);
    expect(versions.length).toBeGreaterThan(1);
    for (const [, date] of versions.slice(1)) expect(date).toMatch(/^- \d{4}-\d{2}-\d{2}$/);
    // Every subsection is one of the format's kinds of change.
    for (const [, kind] of text.matchAll(/^### (.+)$/gm)) {
      expect(["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]).toContain(kind);
    }
  });

  it("the npm tarball ships the changelog and the security policy (npm adds LICENSE and README itself)", async () => {
    const pkg = Pkg.parse(JSON.parse(await read("package.json")));
    expect(pkg.files).toEqual(
      expect.arrayContaining(["dist/cli.js", "dist/chunks/", "config", "CHANGELOG.md", "SECURITY.md"]),
    );
  });
});
