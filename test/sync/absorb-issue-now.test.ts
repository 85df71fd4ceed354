import { describe, expect, it } from "vitest";
import { absorbIssueNow } from "../../src/sync/index.js";
import { Harness, REPO, threatId } from "./harness.js";

const T1 = threatId(1);

/**
 * GitHub telling the engine that one issue changed (a webhook delivery) is absorbed as a poll would
 * absorb it (contract, "GitHub → platform": a person's close or reopen becomes a verdict), without
 * moving the poll's watermark.
 */
describe("absorbIssueNow: one issue GitHub said changed", () => {
  it("a person's close becomes verdict work, committed at once, and the poll watermark stays where it was", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, module: "vulnerability" });
    await h.settle();
    const since = h.ctx.state.github.since[REPO];
    h.github.personSets(REPO, 1, "closed", "alice");

    expect(await absorbIssueNow(h.ctx, REPO, 1)).toBe(true);
    expect(h.ctx.state.queue[T1]?.person).toMatchObject({ repo: REPO, number: 1, event: "closed" });
    expect(h.ctx.state.github.since[REPO]).toBe(since);
    // Durable before anything else happens: a crash now still sends the verdict after a restart.
    h.restart();
    expect(h.ctx.state.queue[T1]?.person).toMatchObject({ event: "closed" });
    await h.cycle();
    expect(h.platform.threats.get(T1)?.status).toBe("pending");
    expect(String(h.platform.threats.get(T1)?.["status_note"])).toContain("alice");
  });

  it("an issue carrying the marker of a threat the state does not know is adopted, never duplicated", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.disk = null; // the state file was lost
    h.restart();

    expect(await absorbIssueNow(h.ctx, REPO, 1)).toBe(true);
    expect(h.ctx.state.threats.get(T1)?.issue).toMatchObject({ repo: REPO, number: 1 });
    expect(h.events).toContainEqual({ type: "adopted", threatId: T1, issue: { repo: REPO, number: 1 } });
  });

  it("an issue that is none of the connector's, or one that was deleted, changes nothing and commits nothing", async () => {
    const h = new Harness();
    await h.github.createIssue(REPO, {
      title: "a person's own issue",
      body: "no marker",
      labels: [],
      assignees: [],
    });
    const commits = h.commits.length;

    expect(await absorbIssueNow(h.ctx, REPO, 1)).toBe(false);
    expect(await absorbIssueNow(h.ctx, REPO, 99)).toBe(false);
    expect(h.commits.length).toBe(commits);
    expect(h.ctx.state.queue).toEqual({});
  });

  it("the connector's own unchanged issue is no person's change", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    const commits = h.commits.length;

    expect(await absorbIssueNow(h.ctx, REPO, 1)).toBe(false);
    expect(h.ctx.state.queue).toEqual({});
    expect(h.commits.length).toBe(commits);
  });
});
