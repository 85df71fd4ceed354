import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";

/** Contract: `threatbridge --version` prints the version, exit 0. */

async function packageVersion(): Promise<string> {
  const pkg: unknown = JSON.parse(await readFile(resolve(import.meta.dirname, "../../package.json"), "utf8"));
  return typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "";
}

function captured(): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l) => void out.push(l), err: (l) => void err.push(l), env: {} }, out, err };
}

describe("threatbridge --version", () => {
  it("prints package.json's version alone on stdout and exits 0", async () => {
    const expected = await packageVersion();
    expect(expected).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-v", "version"]) {
      const { io, out, err } = captured();
      expect(await main([flag], io)).toBe(0);
      expect(out).toEqual([expected]);
      expect(err).toEqual([]);
    }
  });
});
