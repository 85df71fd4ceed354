import { describe, expect, it } from "vitest";
import { emptyState } from "../../src/sync/schema.js";
import { enqueue } from "../../src/sync/records/queue.js";
import { createStateContext, putQueue } from "../../src/sync/records/state-updates.js";
import { drainQueue, runCycle } from "../../src/sync/index.js";
import { Harness, REPO, threatId } from "./harness.js";

/** A write costs the size of the change, and nothing is written when nothing changed. */

const T1 = threatId(1);
const T2 = threatId(2);

describe("persistence: commits of what changed", () => {
  it("an idle cycle commits nothing to the state", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await h.cycle();
    const commits = h.commits.length;
    await h.cycle();
    await h.cycle();
    expect(h.commits.length).toBe(commits);
  });

  it("a cycle whose drain committed its work is the last cycle status shows, not an idle one", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await h.cycle();
    h.platform.put({ id: T2 });
    const busy = await h.cycle();
    expect(busy.counters["issues_created"]).toBe(1);
    expect(h.ctx.state.lastCycle?.finishedAt).toBe(busy.finishedAt);
    expect(h.ctx.state.lastCycle?.counts).toEqual(busy.counters);
  });

  it("a new threat's commits carry its own values and the cursors, never the threats already synced", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await h.cycle();
    const before = h.commits.length;
    h.platform.put({ id: T2 });
    await h.settle();
    const keys = h.commits.slice(before).flatMap((c) => c.changes.map((x) => `${x.collection}:${x.key}`));
    expect(keys).toContain(`threats:${T2}`);
    expect(keys).not.toContain(`threats:${T1}`);
    // The create ran under an intent that was committed, then dropped (write-ahead rule).
    const intents = h.commits
      .slice(before)
      .flatMap((c) => c.changes.filter((x) => x.collection === "intents"));
    expect(intents.some((x) => x.value !== undefined)).toBe(true);
    expect(intents.at(-1)?.value).toBeUndefined();
  });

  it("the intent of a create is committed before the create goes out (write-ahead rule)", async () => {
    const h = new Harness();
    const inner = h.ctx.persist;
    const issuesWhenIntentCommitted: number[] = [];
    h.ctx.persist = async (commit) => {
      const started = commit.changes.some((c) => c.collection === "intents" && c.value !== undefined);
      if (started) issuesWhenIntentCommitted.push(h.issueFor(T1).length);
      await inner?.(commit);
    };
    h.platform.put({ id: T1 });
    await h.settle();
    expect(issuesWhenIntentCommitted).toEqual([0]);
    expect(h.issueFor(T1)).toHaveLength(1);
  });
});

describe("keep only what must be remembered (a state file that grows with the work, not the stream)", () => {
  it("a threat with no issue and no pending work is not stored, and is judged afresh when it changes", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, status: "solved" });
    await h.settle();
    expect(h.ctx.state.threats.get(T1)).toBeUndefined();
    expect(h.issueFor(T1)).toHaveLength(0);
    h.platform.put({ id: T1, status: "unsolved" });
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.ctx.state.threats.get(T1)?.issue).toBeDefined();
  });
});

describe("pending creates keep their view (a create needs no second read of the threat)", () => {
  it("a create queued by an earlier run is rendered from the state, without reading the threat again; the view goes once created", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await runCycle(h.ctx, { skipDrain: true });
    const title = h.ctx.state.queue[T1]?.pending?.view.title ?? "";
    expect(title).not.toBe("");
    h.restart(); // nothing of the run's cache survives
    let gets = 0;
    const read = h.platform.getThreat.bind(h.platform);
    h.platform.getThreat = (id) => {
      gets += 1;
      return read(id);
    };
    await drainQueue(h.ctx);
    expect(gets).toBe(0);
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.issueFor(T1)[0]?.title).toContain(title);
    expect(h.ctx.state.queue[T1]).toBeUndefined();
  });

  it("a queued create whose threat changed to solved meanwhile is read again, not created from the old view", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await runCycle(h.ctx, { skipDrain: true });
    h.platform.put({ id: T1, status: "solved" });
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(0);
  });
});

describe("state guard: values are replaced, never mutated in place", () => {
  it("with freezing on, any in-place write to the state throws; the update functions work", () => {
    const c = createStateContext(emptyState(), { freeze: true });
    enqueue(c, "a", {}, "t");
    const entry = c.state.queue["a"];
    expect(entry).toBeDefined();
    if (!entry) return;
    expect(() => {
      entry.attempts += 1;
    }).toThrow(TypeError);
    expect(() => {
      c.state.seq += 1;
    }).toThrow(/in place/);
    expect(() => {
      delete c.state.queue["a"];
    }).toThrow(/in place/);
    expect(() => {
      c.state.cursors.threats = "x";
    }).toThrow(TypeError);
    putQueue(c, "a", { ...entry, attempts: 1 });
    expect(c.state.queue["a"]?.attempts).toBe(1);
    expect(c.state.seq).toBe(1);
  });
});

describe("a long threat walk drains as it goes (a 1,000,000-threat stream in bounded memory)", () => {
  it("with no write budget to wait for, due work never piles up past the threshold and a page; every threat gets its issue", async () => {
    const h = new Harness();
    h.ctx.interleaveDue = 4;
    const ids = Array.from({ length: 30 }, (_, i) => threatId(100 + i));
    for (const id of ids) h.platform.put({ id });
    let most = 0;
    h.platform.afterPage = (kind) => {
      if (kind === "threats") most = Math.max(most, Object.keys(h.ctx.state.queue).length);
    };
    const report = await h.cycle();
    expect(report.ok).toBe(true);
    // At most the threshold plus one page (3) is due when a page ends: the rest was drained.
    expect(most).toBeLessThanOrEqual(4 + 3);
    expect(report.drained.done).toBe(30);
    for (const id of ids) expect(h.issueFor(id)).toHaveLength(1);
    // Issues were created while the walk was still reading, not only after it.
    const firstCreate = h.events.findIndex((e) => e.type === "created");
    const walkEnd = h.events.findIndex((e) => e.type === "stream_read" && e.stream === "threats");
    expect(firstCreate).toBeGreaterThanOrEqual(0);
    expect(firstCreate).toBeLessThan(walkEnd);
  });

  it("new due work waits for a long walk at most INTERLEAVE_AGE_MS: a few new threats get their issues while the walk still reads", async () => {
    const run = async (msPerPage: number) => {
      const h = new Harness();
      let now = 1_700_000_000_000;
      h.ctx.clock = { now: () => now };
      h.ctx.interleaveDue = 1_000;
      h.ctx.interleaveAgeMs = 1_000;
      const ids = Array.from({ length: 12 }, (_, i) => threatId(300 + i));
      for (const id of ids) h.platform.put({ id });
      h.platform.afterPage = (kind) => {
        if (kind === "threats") now += msPerPage;
      };
      expect((await h.cycle()).drained.done).toBe(12);
      const created = h.events.flatMap((e, i) => (e.type === "created" ? [i] : []));
      const walkEnd = h.events.findIndex((e) => e.type === "stream_read" && e.stream === "threats");
      return created.filter((i) => i < walkEnd).length;
    };
    // Pages a second apart: each page's new threats are drained at the next page's end.
    expect(await run(1_000)).toBeGreaterThan(0);
    // A fast walk with fewer than INTERLEAVE_DUE due: everything is drained once, at its end.
    expect(await run(0)).toBe(0);
  });

  it("a page that brings no new work sends the work waiting at once, without waiting for the walk to end (the stream's tail of echoes)", async () => {
    const h = new Harness();
    h.ctx.clock = { now: () => 1_700_000_000_000 }; // frozen: the age trigger never fires
    h.ctx.interleaveDue = 1_000;
    const old = Array.from({ length: 9 }, (_, i) => threatId(400 + i));
    for (const id of old) h.platform.put({ id });
    await h.settle();
    const fresh = threatId(450);
    h.platform.put({ id: fresh });
    // Then new versions of the others that change nothing on GitHub: pages with no new work.
    for (const id of old) h.platform.put({ id, note: "seen again" });
    const seen = h.events.length;
    expect((await h.cycle()).drained.done).toBe(1);
    const events = h.events.slice(seen);
    const created = events.findIndex((e) => e.type === "created" && e.threatId === fresh);
    const walkEnd = events.findIndex((e) => e.type === "stream_read" && e.stream === "threats");
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(walkEnd);
  });

  it("a short walk that ends on an empty page leaves its work to the cycle's one drain, after GitHub's changes: GitHub's list is read once", async () => {
    const h = new Harness();
    h.ctx.clock = { now: () => 1_700_000_000_000 }; // frozen: the age trigger never fires
    h.ctx.interleaveDue = 1_000;
    h.platform.endOnEmptyPage = true;
    const id = threatId(470);
    h.platform.put({ id });
    expect((await h.cycle()).drained.done).toBe(1);
    const reads = h.events.filter((e) => e.type === "github_issues_read" || e.type === "github_not_modified");
    expect(reads).toHaveLength(1);
    const created = h.events.findIndex((e) => e.type === "created" && e.threatId === id);
    const walkEnd = h.events.findIndex((e) => e.type === "stream_read" && e.stream === "threats");
    const githubRead = h.events.indexOf(reads[0] as (typeof h.events)[number]);
    expect(created).toBeGreaterThan(walkEnd);
    expect(created).toBeGreaterThan(githubRead);
    expect(h.issueFor(id)).toHaveLength(1);
  });

  it("a person's close made while the walk runs becomes a verdict before the walk ends (contract, GitHub → platform)", async () => {
    const h = new Harness();
    h.ctx.interleaveDue = 4;
    h.ctx.interleaveReadItems = 6;
    const ids = Array.from({ length: 30 }, (_, i) => threatId(200 + i));
    for (const id of ids) h.platform.put({ id });
    let closed = false;
    h.platform.afterPage = (kind) => {
      const first = h.issueFor(ids[0] ?? "")[0];
      if (kind !== "threats" || closed || first === undefined) return;
      h.github.personSets(REPO, first.number, "closed", "alice");
      closed = true;
    };
    const report = await h.cycle();
    expect(report.ok).toBe(true);
    expect(closed).toBe(true);
    const verdict = h.events.findIndex((e) => e.type === "verdict_sent" && e.threatId === ids[0]);
    const walkEnd = h.events.findIndex((e) => e.type === "stream_read" && e.stream === "threats");
    expect(verdict).toBeGreaterThanOrEqual(0);
    expect(verdict).toBeLessThan(walkEnd);
    expect(h.platform.threats.get(ids[0] ?? "")?.status).toBe("solved");
  });
});
