import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openJournaledStore, type JournaledStore } from "../../src/state/index.js";
import type { Json } from "../../src/state/journal-line.js";
import { MemFs } from "./journal-mem-fs.js";

/**
 * A SIGKILL at any instant, including mid-compaction and mid-journal-append
 * (a torn last line), loses nothing and duplicates nothing. Modelled here over every step of
 * the file system (MemFs): after a crash at any operation, recovery gives the state of the last
 * resolved commit, or of one that was in flight.
 */

const PATH = "/state/state.json";
const COLLECTIONS = ["threats", "assets", "intents"] as const;

type Action =
  | { op: "set"; col: string; key: string; value: Json }
  | { op: "delete"; col: string; key: string }
  | { op: "meta"; key: string; value: Json };

interface Batch {
  actions: Action[];
  /** Wait for this commit before the next batch (otherwise commits overlap). */
  wait: boolean;
  /** Ask for a compaction after this commit. */
  compact: boolean;
}

const key = fc.constantFrom("t1", "t2", "t3", "t4", "t5");
const value: fc.Arbitrary<Json> = fc.oneof(
  fc.record({
    status: fc.constantFrom("open", "fixed"),
    severity: fc.integer({ min: 0, max: 4 }),
    assetId: fc.constant("a1"),
  }),
  fc.record({
    status: fc.constant("open"),
    severity: fc.constant(3),
    assetId: fc.constant(null),
    issue: fc.record({
      repo: fc.constantFrom("acme/sec", "acme/ops"),
      number: fc.integer({ min: 1, max: 99 }),
      url: fc.constant("https://github.com/acme/sec/issues/1"),
      state: fc.constantFrom("open", "closed"),
      hash: fc.string({ maxLength: 4 }),
    }),
  }),
  fc.string({ maxLength: 6 }),
  fc.integer(),
);
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), col: fc.constantFrom(...COLLECTIONS), key, value }),
  fc.record({ op: fc.constant("delete" as const), col: fc.constantFrom(...COLLECTIONS), key }),
  fc.record({ op: fc.constant("meta" as const), key: fc.constantFrom("cursor", "etag"), value }),
);
const batches = fc.array(
  fc.record({ actions: fc.array(action, { maxLength: 4 }), wait: fc.boolean(), compact: fc.boolean() }),
  { minLength: 1, maxLength: 12 },
);

type Model = { cols: Record<string, Record<string, Json>>; meta: Record<string, Json> };

function applyModel(model: Model, actions: readonly Action[]): Model {
  const next: Model = { cols: structuredClone(model.cols), meta: { ...model.meta } };
  for (const a of actions) {
    if (a.op === "meta") next.meta[a.key] = a.value;
    else if (a.op === "set") (next.cols[a.col] ??= {})[a.key] = a.value;
    else if (next.cols[a.col] !== undefined) delete next.cols[a.col]?.[a.key];
  }
  for (const col of Object.keys(next.cols))
    if (Object.keys(next.cols[col] ?? {}).length === 0) delete next.cols[col];
  return next;
}

function contents(store: JournaledStore): Model {
  const model: Model = { cols: {}, meta: {} };
  for (const col of COLLECTIONS) {
    const rows = Object.fromEntries(store.entries(col));
    if (Object.keys(rows).length > 0) model.cols[col] = rows;
  }
  for (const k of ["cursor", "etag"]) {
    const v = store.getMeta(k);
    if (v !== undefined) model.meta[k] = v;
  }
  return model;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

async function runUntilCrash(fs: MemFs, plan: readonly Batch[]) {
  const states: Model[] = [{ cols: {}, meta: {} }];
  let resolved = 0;
  const store = await openJournaledStore(PATH, {
    fs,
    pause: () => Promise.resolve(),
    compaction: { minJournalBytes: 150, ratio: 0.3 },
  });
  const inFlight: Promise<unknown>[] = [];
  for (const batch of plan) {
    if (fs.crashed) break;
    for (const a of batch.actions) {
      if (a.op === "set") store.set(a.col, a.key, a.value);
      else if (a.op === "delete") store.delete(a.col, a.key);
      else store.setMeta(a.key, a.value);
    }
    const index = states.length;
    const empty = batch.actions.length === 0;
    states.push(applyModel(states[index - 1] ?? { cols: {}, meta: {} }, batch.actions));
    const commit = store.commit().then(() => {
      resolved = Math.max(resolved, index);
    });
    inFlight.push(commit.catch(() => undefined));
    if (batch.compact) inFlight.push(store.compact().catch(() => undefined));
    if (batch.wait || empty) await commit.catch(() => undefined);
  }
  await Promise.all(inFlight);
  await store.close();
  return { states, resolved };
}

describe("journaled store: crash at any file-system step", () => {
  it("recovery equals the last resolved commit, or one in flight; nothing lost, nothing applied twice", async () => {
    await fc.assert(
      fc.asyncProperty(batches, fc.nat({ max: 120 }), fc.integer(), async (plan, crashAt, seed) => {
        const fs = new MemFs(crashAt + 1);
        const { states, resolved } = await runUntilCrash(fs, plan);
        const image = fs.crashImage(seeded(seed));
        const recovered = await openJournaledStore(PATH, { fs: image });
        const got = contents(recovered);
        const candidates = states.slice(resolved);
        expect(candidates).toContainEqual(got);

        // The recovered store goes on: a commit after recovery lands on a line of its own (a torn
        // tail was cut off) and a second recovery sees exactly it on top.
        recovered.setMeta("cursor", "after-recovery");
        await recovered.commit();
        await recovered.close();
        const again = await openJournaledStore(PATH, { fs: image.crashImage(() => 0) });
        expect(contents(again)).toEqual({ ...got, meta: { ...got.meta, cursor: "after-recovery" } });
        await again.close();
      }),
      { numRuns: 300 },
    );
  });

  it("a crash point is reached: the generated runs do crash mid-append and mid-compaction", async () => {
    // Guards the property above against vacuity: the plan below compacts, and crashing at each
    // of its operations yields both torn journal tails and interrupted compactions.
    const plan: Batch[] = Array.from({ length: 8 }, (_, i) => ({
      actions: [
        { op: "set", col: "threats", key: `t${i}`, value: { status: "open", severity: 3, assetId: "a1" } },
      ],
      wait: i % 2 === 0,
      compact: i === 4,
    }));
    const clean = new MemFs();
    await runUntilCrash(clean, plan);
    expect(clean.ops).toBeGreaterThan(20);
    let crashes = 0;
    for (let at = 1; at <= clean.ops; at++) {
      const fs = new MemFs(at);
      const { states, resolved } = await runUntilCrash(fs, plan);
      if (fs.crashed) crashes += 1;
      const recovered = await openJournaledStore(PATH, { fs: fs.crashImage(() => 0.5) });
      expect(states.slice(resolved)).toContainEqual(contents(recovered));
      await recovered.close();
    }
    expect(crashes).toBe(clean.ops);
  });
});
