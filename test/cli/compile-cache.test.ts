import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import nodeModule from "node:module";
import os from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCompileCache, type EnableCompileCache } from "../../src/cli/compile-cache.js";

function recorder(): { calls: (string | undefined)[]; enable: EnableCompileCache } {
  const calls: (string | undefined)[] = [];
  return {
    calls,
    enable: (dir) => {
      calls.push(dir);
      return { status: 1, directory: dir ?? "/tmp/node-compile-cache" };
    },
  };
}

describe("module compile cache at start: a scheduled command does not recompile its modules", () => {
  it("unset: Node's own directory (NODE_COMPILE_CACHE, else the temporary directory)", () => {
    const r = recorder();
    expect(applyCompileCache({}, r.enable)).toBe("/tmp/node-compile-cache");
    expect(r.calls).toEqual([undefined]);
  });

  it("THREATBRIDGE_COMPILE_CACHE names the directory (the container's data volume)", () => {
    const r = recorder();
    expect(applyCompileCache({ THREATBRIDGE_COMPILE_CACHE: "/app/data/compile-cache" }, r.enable)).toBe(
      "/app/data/compile-cache",
    );
    expect(r.calls).toEqual(["/app/data/compile-cache"]);
  });

  it("off or 0 turns it off: Node is not asked", () => {
    const r = recorder();
    expect(applyCompileCache({ THREATBRIDGE_COMPILE_CACHE: "off" }, r.enable)).toBeNull();
    expect(applyCompileCache({ THREATBRIDGE_COMPILE_CACHE: "0" }, r.enable)).toBeNull();
    expect(r.calls).toEqual([]);
  });

  it("a Node without the cache (20) or one that fails to enable it starts as before", () => {
    expect(applyCompileCache({}, null)).toBeNull();
    const failing: EnableCompileCache = () => {
      throw new Error("EACCES");
    };
    expect(applyCompileCache({ THREATBRIDGE_COMPILE_CACHE: "/nope" }, failing)).toBeNull();
  });

  // The built CLI on a Node that has the cache (22.1+): what `--version` loads is cached on disk.
  const hasCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
  it.runIf(hasCache && existsSync("dist/cli.js"))("the built CLI fills the named directory", () => {
    const dir = mkdtempSync(join(os.tmpdir(), "threatbridge-compile-cache-"));
    try {
      execFileSync(process.execPath, ["dist/cli.js", "--version"], {
        env: { ...process.env, THREATBRIDGE_COMPILE_CACHE: dir },
        timeout: 30_000,
      });
      expect(readdirSync(dir, { recursive: true }).length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
