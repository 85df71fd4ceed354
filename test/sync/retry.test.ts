import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { emptyState, type State, type ThreatRecord } from "../../src/sync/schema.js";
import {
  applyRetry,
  engineState,
  persistTo,
  planRetry,
  queueSummary,
  stateFromStore,
  summarize,
  type EngineState,
} from "../../src/sync/index.js";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { REPO } from "./harness.js";
import { seedStore } from "../state/seed-store.js";

/**
 * `threatbridge retry` (contract, command table): work either side refused for good, which
 * `status` lists under `refused`, goes back in the queue for the next cycle.
 */

const NOW = "2026-03-01T12:00:00.000Z";
const ISSUE = { repo: REPO, number: 3, url: "https://github.test/acme/threats/issues/3", hash: "h" };

function record(extra: Partial<ThreatRecord> = {}): ThreatRecord {
  return { status: "unsolved", severity: 3, assetId: null, updatedAt: "u1", ...extra };
}

const refusal = (action: string, reason: string) => ({ action, reason, at: "2026-03-01T10:00:00.000Z" });

/** A create refused (archived repository), a state change refused (locked), one that is fine. */
function plainStateWithRefusals(): State {
  const state = emptyState();
  state.seq = 10;
  state.threats["create-refused"] = record({
    refused: refusal("create", "Repository was archived so is read-only."),
  });
  state.threats["reopen-refused"] = record({
    issue: { ...ISSUE, state: "closed" },
    link: `${REPO}#3`,
    refused: refusal("update", "Unable to create comment because issue is locked."),
  });
  state.threats["fine"] = record({ issue: { ...ISSUE, number: 4, state: "open" }, link: `${REPO}#4` });
  return state;
}

/** The state as the engine holds it (records behind a view, as a store opened it). */
const stateWithRefusals = (): EngineState => engineState(plainStateWithRefusals());

const budget = { perMinute: 0, perHour: 0, minIntervalMs: 0 };
const refusedOf = (state: EngineState) =>
  summarize({ state, nowMs: Date.parse(NOW), budget, lock: { held: false } }).refused;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("planRetry: what retry would re-queue", () => {
  it("--all picks every threat `status` lists under refused, with its step and reason", () => {
    const state = stateWithRefusals();
    const plan = planRetry(state, { all: true });
    expect(plan.notRefused).toEqual([]);
    expect(plan.requeue).toEqual(refusedOf(state));
    expect(plan.requeue.map((r) => r.threatId).sort()).toEqual(["create-refused", "reopen-refused"]);
  });

  it("--threat picks the threats named once each, in the order given, and tells an unknown id from one with nothing refused", () => {
    const plan = planRetry(stateWithRefusals(), {
      threatIds: ["reopen-refused", "no-such-threat", "fine", "reopen-refused"],
    });
    expect(plan.requeue.map((r) => [r.threatId, r.action])).toEqual([["reopen-refused", "update"]]);
    expect(plan.notRefused).toEqual([
      { threatId: "no-such-threat", known: false },
      { threatId: "fine", known: true },
    ]);
  });
});

describe("applyRetry: the refused work goes back in the queue", () => {
  it("clears the refusal and queues the threat as new work of its class (a refused create is a create again)", () => {
    const state = stateWithRefusals();
    const plan = planRetry(state, { threatIds: ["create-refused"] });
    const commit = applyRetry(state, plan, { now: NOW, freeze: true });
    expect(commit).not.toBeNull();
    expect(state.threats.get("create-refused")?.refused).toBeUndefined();
    expect(state.queue["create-refused"]).toEqual({ seq: 11, enqueuedAt: NOW, attempts: 0 });
    expect(queueSummary(state)).toMatchObject({ total: 1, byAction: { create: 1 } });
    // The other refusal stays where `status` shows it.
    expect(refusedOf(state).map((r) => r.threatId)).toEqual(["reopen-refused"]);
    // One commit of exactly what changed: the threat's record, its queue entry and the sequence.
    expect(commit?.changes.map((c) => `${c.collection}/${c.key}`).sort()).toEqual([
      "queue/create-refused",
      "threats/create-refused",
    ]);
    expect(commit?.meta).toEqual([{ key: "seq", value: 11 }]);
  });

  it("a threat already queued again keeps its place and age, and its back-off ends", () => {
    const state = stateWithRefusals();
    const later = Date.parse(NOW) + 3_600_000;
    state.queue["reopen-refused"] = {
      seq: 4,
      enqueuedAt: "2026-03-01T11:00:00.000Z",
      attempts: 2,
      notBefore: later,
      lastError: "GitHub answered 502",
    };
    applyRetry(state, planRetry(state, { all: true }), { now: NOW });
    expect(state.queue["reopen-refused"]).toEqual({
      seq: 4,
      enqueuedAt: "2026-03-01T11:00:00.000Z",
      attempts: 2,
      lastError: "GitHub answered 502",
    });
    expect(refusedOf(state)).toEqual([]);
  });

  it("nothing selected: nothing to write", () => {
    const state = stateWithRefusals();
    const plan = planRetry(state, { threatIds: ["fine"] });
    expect(applyRetry(state, plan, { now: NOW })).toBeNull();
    expect(state.queue).toEqual({});
  });

  it("the commit survives a reopen of the store, as the next cycle finds it", async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-retry-"));
    const path = join(dir, "state.json");
    await seedStore(path, plainStateWithRefusals());
    const store = await openStateStore(path);
    try {
      const state = stateFromStore(store);
      const commit = applyRetry(state, planRetry(state, { all: true }), { now: NOW });
      if (commit === null) throw new Error("expected a commit");
      await persistTo(store)(commit);
    } finally {
      await store.close();
    }
    const reopened = await readStoredState(path);
    if (reopened === null) throw new Error("the state file is gone");
    expect(Object.keys(reopened.queue).sort()).toEqual(["create-refused", "reopen-refused"]);
    expect(reopened.threats.get("create-refused")?.refused).toBeUndefined();
    expect(reopened.threats.get("reopen-refused")?.refused).toBeUndefined();
    expect(reopened.seq).toBe(12);
  });
});
