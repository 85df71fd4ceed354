import { describe, expect, it } from "vitest";
import type { QueueEntry, ThreatRecord } from "../../../src/sync/schema.js";
import {
  attemptFailed,
  backedOff,
  withoutPending,
  withoutPerson,
  withWork,
} from "../../../src/sync/transitions/due-work.js";
import {
  contentWritten,
  issueAdopted,
  issueCreated,
  issueDeleted,
  issueStateWritten,
  issueTransferred,
  linkWritten,
  refusalCleared,
  removalCloseCleared,
  refused,
  threatGone,
  threatRead,
  verdictSent,
  versionForgotten,
} from "../../../src/sync/transitions/outcome.js";

const ISSUE = { repo: "acme/sec", number: 3, url: "u", state: "open" as const, hash: "h1" };
const mapped: ThreatRecord = {
  status: "unsolved",
  severity: 2,
  assetId: null,
  updatedAt: "u1",
  issue: ISSUE,
};
const person = {
  event: "closed" as const,
  reason: "completed",
  login: "alice",
  repo: "acme/sec",
  number: 3,
  url: "u",
  seenAt: "t",
};

describe("outcome transitions (an outcome → the new record)", () => {
  it("spec PATCH rule 3: a verdict's answer gives the recalculated status; the issue is as the person left it", () => {
    expect(verdictSent(mapped, { status: "accepted", updatedAt: "u2" }, "closed")).toEqual({
      ...mapped,
      status: "accepted",
      updatedAt: "u2",
      issue: { ...ISSUE, state: "closed" },
    });
  });

  it("a close for the asset's removal is remembered, so a person's reopen wins", () => {
    expect(issueStateWritten(mapped, { state: "closed", removal: true })).toEqual({
      ...mapped,
      issue: { ...ISSUE, state: "closed" },
      closedForRemoval: true,
    });
    expect(issueStateWritten(mapped, { state: "closed", hash: "h2", removal: false })).toEqual({
      ...mapped,
      issue: { ...ISSUE, state: "closed", hash: "h2" },
    });
  });

  it("a content PATCH records the hash it wrote, so the echo costs no write", () => {
    expect(contentWritten(mapped, "h9").issue?.hash).toBe("h9");
    const { issue: _none, ...unmapped } = mapped;
    expect(contentWritten(unmapped, "h9")).toBe(unmapped);
  });

  it("404 marks the threat gone; a GET gives status and version; adoption maps the issue and its link", () => {
    expect(threatGone(mapped)).toEqual({ ...mapped, gone: true });
    expect(threatRead(mapped, { status: "solved", updatedAt: "u3" })).toMatchObject({
      status: "solved",
      updatedAt: "u3",
    });
    const { issue: _none, ...unmapped } = mapped;
    expect(issueAdopted(unmapped, ISSUE)).toEqual({ ...mapped, link: "acme/sec#3" });
  });

  it("a refusal is recorded and cleared once the plan settles; a deleted issue unmaps the threat", () => {
    const r = refused(mapped, { action: "update", reason: "locked", at: "t" });
    expect(r.refused).toEqual({ action: "update", reason: "locked", at: "t" });
    expect(refusalCleared(r)).toEqual(mapped);
    const deleted = issueDeleted(mapped, { repo: "acme/sec", number: 3, at: "t" });
    expect(deleted.issue).toBeUndefined();
    expect(deleted.deletedIssue).toEqual({ repo: "acme/sec", number: 3, at: "t" });
  });
});

describe("outcome transitions: the issue moves", () => {
  it("a transferred issue: the record follows it to its new place and keeps what was last written", () => {
    const moved = issueTransferred(mapped, ISSUE, { repo: "acme/other", number: 9, url: "u9" });
    expect(moved.issue).toEqual({ ...ISSUE, repo: "acme/other", number: 9, url: "u9" });
  });

  it("removed assets: the threat back on the stream may be closed for a later removal again", () => {
    expect(removalCloseCleared({ ...mapped, closedForRemoval: true })).toEqual(mapped);
    expect(removalCloseCleared(mapped)).toBe(mapped);
  });

  it("reconcile --recreate: the new issue replaces the deleted one in the record; a plain create just maps it", () => {
    const deleted = issueDeleted(mapped, { repo: "acme/sec", number: 3, at: "t" });
    const fresh = { ...ISSUE, number: 11, url: "u11" };
    expect(issueCreated(deleted, fresh)).toEqual({ ...mapped, issue: fresh });
    const { issue: _none, ...unmapped } = mapped;
    expect(issueCreated(unmapped, ISSUE)).toEqual(mapped);
  });
});

describe("outcome transitions: the platform's side", () => {
  it("external-references rule 2: the link written is the record's link, replacing an older one", () => {
    expect(linkWritten(mapped, "acme/sec#3").link).toBe("acme/sec#3");
    expect(linkWritten({ ...mapped, link: "acme/old#1" }, "acme/sec#3").link).toBe("acme/sec#3");
  });

  it("a forgotten version is planned again on the next read; forgetting twice changes nothing", () => {
    const forgotten = versionForgotten(mapped);
    expect(forgotten).toEqual({ ...mapped, updatedAt: "" });
    expect(versionForgotten(forgotten)).toBe(forgotten);
  });
});

describe("due work transitions (the stored part of the queue)", () => {
  const fresh = { seq: 5, now: "t5" };

  it("new work on a threat with no entry stores its age and nothing derivable (no priority, no severity)", () => {
    expect(withWork(undefined, {}, fresh)).toEqual({ seq: 5, enqueuedAt: "t5", attempts: 0 });
  });

  it("a backfill's work waits in the last class until real work comes: then it is the threat's own class again", () => {
    const backfill = withWork(undefined, { later: true }, fresh);
    expect(backfill).toEqual({ seq: 5, enqueuedAt: "t5", attempts: 0, later: true });
    // Backfill work on an entry with work adds nothing (nor ends its back-off).
    const busy: QueueEntry = { seq: 1, enqueuedAt: "t1", attempts: 2, notBefore: 99 };
    expect(withWork(busy, { later: true }, fresh)).toBe(busy);
    // Any other work clears it.
    expect(withWork(backfill, {}, fresh).later).toBeUndefined();
    expect(withWork(backfill, { person }, fresh).later).toBeUndefined();
  });

  it("a later stream version never drops a person's change; it replaces the create's view and ends a back-off", () => {
    const view = { view: VIEW, link: null };
    const entry: QueueEntry = {
      seq: 1,
      enqueuedAt: "t1",
      attempts: 3,
      notBefore: 99,
      lastError: "x",
      person,
    };
    const next = withWork(entry, { pending: view }, fresh);
    expect(next).toEqual({ seq: 1, enqueuedAt: "t1", attempts: 3, lastError: "x", person, pending: view });
    expect(withWork(next, { person: { ...person, seenAt: "t9" } }, fresh).pending).toEqual(view);
    expect(withoutPending(next)).toEqual({ seq: 1, enqueuedAt: "t1", attempts: 3, lastError: "x", person });
    expect(withoutPerson(next)?.person).toBeUndefined();
  });

  it("a failure counts an attempt and backs off 30 s doubling, at most one hour", () => {
    const entry: QueueEntry = { seq: 1, enqueuedAt: "t", attempts: 0 };
    const once = attemptFailed(entry, "boom");
    expect(once).toEqual({ ...entry, attempts: 1, lastError: "boom" });
    expect(backedOff(once, 1_000).notBefore).toBe(31_000);
    expect(backedOff({ ...once, attempts: 3 }, 0).notBefore).toBe(120_000);
    expect(backedOff({ ...once, attempts: 30 }, 0).notBefore).toBe(3_600_000);
  });
});

const VIEW = {
  id: "a",
  title: "T",
  description: null,
  severity: "low",
  severityRank: 1,
  module: null,
  status: "unsolved",
  ageDays: null,
  assetId: null,
  moduleData: null,
  updatedAt: "u2",
};
