import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { sqlite } from "../../src/state/sqlite.js";
import { stateFromStore } from "../../src/sync/index.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Nothing is written when nothing changed, and a new state's first sync leaves the database and
 * the saved cursors in place. The built CLI's main in this process, against the simulator and the
 * GitHub stand-in. (The import of the store before SQLite: test/state/import.test.ts.)
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the stored state (end to end)", () => {
  it("an idle sync (nothing changed) writes nothing: every state file stays byte-for-byte", async () => {
    world = await startWorld({ threats: 24 });
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    // The links the first sync wrote come back on the stream once the platform has applied them
    // (spec, external references rule 5: asynchronously); the second sync reads those echoes.
    world.sim.sim.settle();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    world.sim.sim.settle();
    const before = await world.stateFiles();
    expect(before.size).toBeGreaterThan(0);
    const github = world.gh.counters();
    const idle = await world.run(["sync", "-c", world.configPath]);
    expect(idle.code).toBe(0);
    expect(await world.stateFiles()).toEqual(before);
    // A new process's GitHub reads are conditional too: the ETags kept in the state get 304s, free.
    expect(world.gh.counters().rateLimitPoints).toBe(github.rateLimitPoints);
    expect(world.gh.counters().notModified).toBeGreaterThan(github.notModified);
  }, 120_000);

  it("the first sync of a new state writes the saved cursors at state.path and the database beside it, which docs/operations.md's read-only queries read (docs/operations.md)", async () => {
    world = await startWorld({ threats: 6 });
    expect(existsSync(world.statePath)).toBe(false);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(existsSync(world.statePath)).toBe(true);
    expect(existsSync(world.statePath.replace(/\.json$/, ".db"))).toBe(true);
    // The database holds the rows: what the sync did is all there.
    const store = await openStateStore(world.statePath, { readOnly: true });
    const mapped = [...stateFromStore(store).threats.entries()].filter(([, t]) => t.issue !== undefined);
    await store.close();
    expect(mapped.length).toBe(world.gh.issues(REPO).length);

    // Every statement of the page's "Read-only queries" block runs on this file, read-only, as an
    // operator would run it; the first counts the issues GitHub holds.
    const queries = await operationsQueries();
    expect(queries.length).toBeGreaterThanOrEqual(5);
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(world.statePath.replace(/\.json$/, ".db"), { readOnly: true });
    try {
      const results = queries.map((sql) => db.prepare(sql).all());
      const byRepo = results[0] as Array<{ issues: number }>;
      expect(byRepo.reduce((n, row) => n + row.issues, 0)).toBe(mapped.length);
    } finally {
      db.close();
    }
  }, 60_000);
});

/** The statements of docs/operations.md's sql block (comment lines dropped), in order. */
async function operationsQueries(): Promise<string[]> {
  const page = await readFile(new URL("../../docs/operations.md", import.meta.url), "utf8");
  const block = /### Read-only queries[\s\S]*?```sql\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
  return block
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("--"))
    .join("\n")
    .split(";")
    .map((sql) => sql.trim())
    .filter((sql) => sql !== "");
}
