import { describe, expect, it } from "vitest";
import { Harness, makeConfig, threatId } from "../harness.js";
import { FakeWorkflowGitHub } from "../fake-workflow.js";
import { Intent } from "../../../src/sync/schema.js";
import { describeAction } from "../../../src/sync/actions/index.js";
import { enqueueOwners } from "../../../src/sync/groups/plan-subject.js";
import { drainQueue } from "../../../src/sync/run/drain.js";
import { runCycle } from "../../../src/sync/run/cycle.js";
import { enqueue } from "../../../src/sync/records/queue.js";
import { dueWork, queueSummary } from "../../../src/sync/plan/queue-order.js";
import { intentSubject, subjectOf } from "../../../src/sync/records/subject.js";
import { anyGroupStored } from "../../../src/sync/records/group-members.js";

/**
 * One queue of subjects (a threat, or a group under its key): a group is queued by its members'
 * changes (controller-runtime's `Owns`), drained by the one drain after its members' own work
 * (contract, "Groups": the members' own work before their group's parent), and its writes' intents
 * name their subject's kind.
 */

const GROUP = "group:asset:00000000-0000-4000-8000-00000000a001";

function harness(): Harness {
  return new Harness(makeConfig({ grouping: { by: "asset" } }), new FakeWorkflowGitHub());
}

const now = "2026-01-01T00:00:00.000Z";

describe("the queue holds subjects", () => {
  it("a key says its subject's kind: a group's (current or superseded), else a threat's", () => {
    expect(subjectOf(GROUP)).toEqual({ kind: "group", id: GROUP });
    expect(subjectOf(`superseded:1:${GROUP}`).kind).toBe("group");
    expect(subjectOf(threatId(1))).toEqual({ kind: "threat", id: threatId(1) });
  });

  it("a group's subject sorts after every threat's work, however old (its parent follows its members)", () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    // The group queued first: older than the threat's work, still after it.
    enqueue(h.ctx, GROUP, {}, now);
    enqueue(h.ctx, threatId(1), {}, now);
    expect(dueWork(h.ctx.state, Date.now()).map((d) => [d.id, d.kind])).toEqual([
      [threatId(1), "threat"],
      [GROUP, "group"],
    ]);
    // The backlog names it apart from the threats' classes, with no severity of its own.
    const summary = queueSummary(h.ctx.state);
    expect(summary.byAction["group"]).toBe(1);
    expect(summary.total).toBe(2);
    expect(Object.values(summary.bySeverity).reduce((a, b) => a + b, 0)).toBe(1);
  });
});

describe("nothing grouped", () => {
  it("grouping off and no group stored: threats get their issues and links, and no group is filed or queued", async () => {
    const h = new Harness(makeConfig(), new FakeWorkflowGitHub());
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.cycle();
    expect(h.issues("acme/threats").filter((i) => i.threatId !== null)).toHaveLength(2);
    expect(anyGroupStored(h.ctx.state.groups)).toBe(false);
    expect(h.ctx.state.queue).toEqual({});
  });

  it("grouping switched off keeps an older setting's groups counted: their issues still take people's changes and are retired (contract, Changing grouping)", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    const github = h.github as FakeWorkflowGitHub;
    const parent = github.parents("acme/threats")[0];
    expect(parent).toBeDefined();
    h.config = makeConfig();
    h.restart();
    // The group's record stays (superseded at the next cycle's start), so the threats' path still
    // asks grouping until its parent is retired.
    expect(anyGroupStored(h.ctx.state.groups)).toBe(true);
    await h.settle();
    const retired = h.issues("acme/threats").find((i) => i.number === parent?.number);
    expect(retired?.state).toBe("closed");
    expect(retired?.body).toContain("<!-- threatbridge:retired-group=");
  });
});

describe("a group is queued by its members and drained by the one drain", () => {
  it("one cycle makes the parent through the group's subject, and leaves nothing queued", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.cycle();
    const github = h.github as FakeWorkflowGitHub;
    expect(github.parents("acme/threats")).toHaveLength(1);
    expect(h.ctx.state.queue).toEqual({});
  });

  it("a member's change queues its group (Owns); a group with nothing to do is dropped, writing nothing", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    expect(h.ctx.state.queue[GROUP]).toBeUndefined();
    enqueueOwners(h.ctx, threatId(1));
    expect(h.ctx.state.queue[GROUP]).toBeDefined();
    const writes = h.events.length;
    const result = await drainQueue(h.ctx);
    expect(result).toEqual({ done: 1, failed: 0, deferred: 0 });
    expect(h.ctx.state.queue[GROUP]).toBeUndefined();
    expect(h.events.slice(writes).filter((e) => e.type === "group_written")).toHaveLength(0);
  });

  it("every group is listed once per state, not once per process: a restart plans no group it need not", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.cycle();
    expect(h.ctx.state.groupsListed).toBe(true);
    const groupsQueued = async (): Promise<string[]> => {
      await runCycle(h.ctx, { skipDrain: true });
      return Object.keys(h.ctx.state.queue).filter((key) => subjectOf(key).kind === "group");
    };
    // A new process on the same state, nothing changed: no group is queued, so none is planned
    // (its members' changes queue a group in the same commit as the change).
    h.restart();
    expect(await groupsQueued()).toEqual([]);
    // A state written before the one queue (no marker): every group with work left is listed once.
    const older = JSON.parse(h.disk ?? "{}") as Record<string, unknown>;
    delete older["groupsListed"];
    h.disk = JSON.stringify(older);
    h.restart();
    expect(await groupsQueued()).toEqual([GROUP]);
    expect(h.ctx.state.groupsListed).toBe(true);
  });

  it("a group waits while one of its members has due work of its own (requeued, not dropped)", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    enqueue(h.ctx, threatId(1), {}, now);
    enqueue(h.ctx, GROUP, {}, now);
    // Only the groups drained: the member's work stays due, so its group waits for it.
    const result = await drainQueue(h.ctx, { only: "group" });
    expect(result).toEqual({ done: 0, failed: 0, deferred: 1 });
    expect(h.ctx.state.queue[GROUP]).toBeDefined();
    // The whole queue: the member first, then its group, both done.
    const all = await drainQueue(h.ctx);
    expect(all.deferred).toBe(0);
    expect(h.ctx.state.queue).toEqual({});
  });
});

describe("intents name their subject's kind", () => {
  it("a group's create goes out under an intent with subject group, a threat's under subject threat", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.cycle();
    const written = h.commits.map((c) => JSON.stringify(c)).join("\n");
    expect(written).toMatch(
      /"kind":"group_create"[^}]*"subject":"group"|"subject":"group"[^}]*"kind":"group_create"/,
    );
    expect(written).toMatch(/"kind":"create"[^}]*"subject":"threat"|"subject":"threat"[^}]*"kind":"create"/);
  });

  it("an intent of a state written before the field was kept is read, its subject told by its key", () => {
    const old = Intent.parse({
      id: "i1",
      kind: "group_create",
      threatId: GROUP,
      repo: "acme/threats",
      startedAt: now,
    });
    expect(old.subject).toBeUndefined();
    expect(intentSubject(old)).toBe("group");
    expect(intentSubject({ threatId: threatId(1) })).toBe("threat");
  });
});

describe("one dry-run description, from the action modules", () => {
  it("a group's writes are named by their modules: group, attach, verdict, comment; bookkeeping hidden", () => {
    const ref = { groupId: GROUP, repo: "acme/threats" };
    expect(
      describeAction({ kind: "group_create", ...ref, title: "T", body: "", labels: ["x"], hash: "h" }),
    ).toMatchObject({ action: "group", title: "T", labels: ["x"], detail: "create parent" });
    expect(
      describeAction({
        kind: "attach",
        ...ref,
        parentNumber: 0,
        threatId: threatId(1),
        childNumber: 7,
        childId: 70,
      }),
    ).toEqual({ action: "attach", issue: 7, detail: `to the new parent of ${GROUP}` });
    expect(describeAction({ kind: "single_person_done", ...ref, number: 3 })).toEqual({ hidden: true });
    expect(
      describeAction({ kind: "group_retire_note", ...ref, number: 3, issueKind: "parent", body: "b" }),
    ).toMatchObject({ action: "comment" });
  });
});
