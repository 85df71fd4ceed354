import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GH_TOKEN, REPO, startWorld, type World } from "../e2e/world.js";

/**
 * No misleading hints: a repository typo answers GitHub's bare 404; `sync` must say to
 * check `github.repository` (or the route's `repository`) and the token's access to it.
 */

let world: World;
let baseConfig: string;

beforeAll(async () => {
  world = await startWorld({ threats: 6, assets: 3 }, "", {
    standIn: { tokens: [GH_TOKEN], repositories: { [REPO]: {} } },
  });
  baseConfig = await readFile(world.configPath, "utf8");
});
afterAll(async () => {
  await world.close();
});

describe("sync with a repository that GitHub answers 404 for", () => {
  it("names github.repository and the token's access in the error, exit 1", async () => {
    await writeFile(
      world.configPath,
      baseConfig.replace(`repository: ${REPO}`, "repository: acme/security-threat"),
    );
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("acme/security-threat");
    expect(r.stderr).toContain("github.repository");
    expect(r.stderr).toMatch(/token.*access|access.*token/);
  });

  it("names the route's repository when a route points at the missing repository", async () => {
    await writeFile(world.configPath, `${baseConfig}routes:\n  - match: {}\n    repository: acme/urgnet\n`);
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("acme/urgnet");
    expect(r.stderr).toContain("the route's repository");
  });
});
