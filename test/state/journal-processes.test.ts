import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openJournaledStore, type Json } from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";
import { BULK, buildStoreWriter, keysOf, startStoreWriter, type StoreWriter } from "./journal-child.js";

/** A SIGKILL at any instant, including mid-compaction and mid-journal-append
 * (a torn last line), loses nothing and duplicates nothing, with real processes and files. */

const hasProcfs = existsSync("/proc/self/stat");

let root: { dir: string; cleanup: () => Promise<void> };
let driver: string;
const writers: StoreWriter[] = [];

beforeAll(async () => {
  root = await withTempDir();
  driver = await buildStoreWriter(join(root.dir, "build"));
});
afterAll(async () => {
  await root.cleanup();
});
afterEach(async () => {
  await Promise.all(writers.splice(0).map((w) => w.kill()));
});

/** Recovers the store and checks it is exactly the state of commit n, for n resolved or in flight. */
async function expectRecovered(statePath: string, resolved: number): Promise<number> {
  const store = await openJournaledStore(statePath);
  const n = store.getMeta("n");
  if (typeof n !== "number") throw new Error(`meta n is ${JSON.stringify(n)}`);
  // Nothing lost: at least the last resolved commit. In flight: at most a few more were issued.
  expect(n).toBeGreaterThanOrEqual(resolved);
  const expected = new Map<string, Json>();
  for (let m = 1; m <= n; m++)
    for (const key of keysOf(m)) expected.set(key, { status: "open", severity: 3, assetId: null, n: m });
  let bulk = 0;
  for (const [key, value] of store.entries("threats")) {
    if (key.startsWith("b")) bulk += 1;
    else expect(value).toEqual(expected.get(key));
  }
  expect(bulk).toBe(BULK);
  expect(store.size("threats")).toBe(BULK + expected.size);
  await store.close();
  return n;
}

async function killRounds(name: string, killWhen: (line: string) => boolean): Promise<number> {
  const statePath = join(root.dir, name, "state.json");
  let interrupted = 0;
  let last = 0;
  for (let round = 0; round < 6; round++) {
    const writer = startStoreWriter(driver, statePath);
    writers.push(writer);
    await writer.waitFor((line) => line.startsWith("ready"));
    await writer.waitFor(killWhen);
    await writer.kill();
    // The child died inside a compaction: it had started and not reported its end.
    if (writer.phase() === "start") interrupted += 1;
    const n = await expectRecovered(statePath, writer.resolved());
    expect(n).toBeGreaterThanOrEqual(last);
    last = n;
  }
  return interrupted;
}

describe.skipIf(!hasProcfs)("journaled store under SIGKILL (real processes)", () => {
  it("killed mid-append, again and again: every resolved commit is recovered, exactly once", async () => {
    let seen = 0;
    // Kill while commits stream out, after a varying number of them.
    await killRounds("appends", (line) => line.startsWith("ok ") && ++seen % 37 === 0);
  });

  it("killed mid-compaction (while serializing, and right after the snapshot's rename): nothing lost", async () => {
    let turn = 0;
    const interrupted = await killRounds("compaction", (line) =>
      turn++ % 2 === 0 ? line === "phase start" : line === "phase snapshot-written",
    );
    expect(interrupted).toBeGreaterThanOrEqual(2);
  });
});
