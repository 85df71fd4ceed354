import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { assertBuilt } from "../e2e/world.js";

/**
 * Node prints an ExperimentalWarning when node:sqlite loads; the CLI's stderr carries JSON lines
 * only, so src/state/sqlite.ts drops exactly that warning. A child process loads the built module
 * as the CLI does, then emits warnings of its own: those still print.
 */
const SQLITE = pathToFileURL(resolve(import.meta.dirname, "../../dist/state/sqlite.js")).href;

describe("node:sqlite's ExperimentalWarning", () => {
  it("is silenced when the store loads node:sqlite, and every other warning still prints", () => {
    assertBuilt();
    const script = `
      const { sqlite } = await import(${JSON.stringify(SQLITE)});
      const { DatabaseSync } = sqlite();
      new DatabaseSync(":memory:").close();
      process.emitWarning("SQLite lookalike from elsewhere", "ExperimentalWarning");
      process.emitWarning("an old API", "DeprecationWarning");
      process.emitWarning("something else");
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status).toBe(0);
    expect(child.stderr).not.toContain("SQLite is an experimental feature");
    expect(child.stderr).toContain("ExperimentalWarning: SQLite lookalike from elsewhere");
    expect(child.stderr).toContain("DeprecationWarning: an old API");
    expect(child.stderr).toContain("Warning: something else");
  });

  it("without the filter, Node 22 prints that notice (the test above would see it); a Node that prints none prints nothing else", () => {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", `await import("node:sqlite");`], {
      encoding: "utf8",
    });
    expect(child.status).toBe(0);
    // Node 22 calls node:sqlite experimental; Node 24's releases (24.21 here) no longer warn.
    if (process.versions.node.startsWith("22."))
      expect(child.stderr).toContain("SQLite is an experimental feature");
    else expect(child.stderr.replace(/.*SQLite is an experimental feature.*\n?/g, "").trim()).toBe("");
  });
});
