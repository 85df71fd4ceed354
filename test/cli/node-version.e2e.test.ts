import { execFileSync, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isSupportedNode, nodeVersionProblem } from "../../src/cli/node-version.js";
import { assertBuilt, CLI } from "../e2e/world.js";

/**
 * The CLI runs on Node 22 (from 22.13) or 24 and later (package.json `engines`); on any other it
 * exits 2 at once with one line naming the versions it needs (docs/reference.md, "Node"), before
 * it loads a module an older Node could fail on.
 */

describe("the Node version guard", () => {
  it("engines ^22.13.0 || >=24.0.0: 22.13+ and 24+ run, 20, 22.12 and 23 do not", () => {
    for (const good of ["22.13.0", "22.20.1", "24.0.0", "24.11.1", "25.2.0"])
      expect(isSupportedNode(good)).toBe(true);
    for (const bad of ["18.20.4", "20.20.2", "22.12.0", "23.11.0", "", "x.y"])
      expect(isSupportedNode(bad)).toBe(false);
  });

  it("the refusal is one line naming Node 22.13+ and 24 and the Node it found", () => {
    expect(nodeVersionProblem("22.13.0")).toBeUndefined();
    const line = nodeVersionProblem("20.20.2") ?? "";
    expect(line).not.toContain("\n");
    expect(line).toContain("Node 22.13+");
    expect(line).toContain("24");
    expect(line).toContain("this is Node 20.20.2");
  });

  it("the built CLI on an older Node exits 2 with that one line, and nothing on stdout", () => {
    assertBuilt();
    // The test's own Node, told it is 20.20.2 before the CLI's first line runs; and any older
    // Node on PATH (a machine's system Node), as a user would meet it.
    const fake = "data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.20.2'})";
    const runs = [spawnSync(process.execPath, ["--import", fake, CLI, "--version"], { encoding: "utf8" })];
    for (const node of olderNodesOnPath())
      runs.push(spawnSync(node, [CLI, "--version"], { encoding: "utf8" }));
    for (const run of runs) {
      expect(run.status).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/^threatbridge: needs Node 22\.13\+ or 24\+, this is Node 20\./);
    }
  });

  it("the built CLI on this Node (a supported one) runs as before", () => {
    assertBuilt();
    const run = spawnSync(process.execPath, [CLI, "--version"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run.stderr).toBe("");
  });
});

/** `node` executables on PATH whose version the CLI refuses (Node 20 on the development machine). */
function olderNodesOnPath(): string[] {
  const found: string[] = [];
  for (const dir of (process.env["PATH"] ?? "").split(":")) {
    if (dir === "") continue;
    const node = `${dir}/node`;
    try {
      const version = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
      if (!isSupportedNode(version) && version.startsWith("20.")) found.push(node);
    } catch {
      // No node there, or not one that runs.
    }
  }
  return found;
}
