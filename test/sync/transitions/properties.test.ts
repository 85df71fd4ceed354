import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PersonChange, QueueEntry, ThreatRecord } from "../../../src/sync/schema.js";
import { withoutPending, withWork } from "../../../src/sync/transitions/due-work.js";
import { personChange } from "../../../src/sync/transitions/issue-seen.js";
import { applyThreatVersion, type ThreatVersion } from "../../../src/sync/transitions/threat-version.js";

/**
 * Properties of the pure transitions (the engine's pure core), over any record and any delivery order of
 * stream versions, duplicates included. The crash properties through the engine's shell are in
 * test/sync/properties.test.ts.
 */

const URL = "https://github.test/acme/sec/issues/3";
const STATUSES = ["unsolved", "pending", "solved", "false_positive", "accepted"] as const;

const version: fc.Arbitrary<ThreatVersion> = fc.record({
  status: fc.constantFrom(...STATUSES),
  updatedAt: fc.constantFrom("u1", "u2", "u3", "u4"),
  severityRank: fc.option(fc.integer({ min: 0, max: 4 })),
  assetId: fc.option(fc.constantFrom("a1", "a2")),
  link: fc.option(fc.constantFrom("acme/sec#3", "acme/sec#4")),
});

const record: fc.Arbitrary<ThreatRecord> = fc
  .record({
    status: fc.constantFrom(...STATUSES),
    severity: fc.integer({ min: 0, max: 4 }),
    assetId: fc.option(fc.constantFrom("a1", "a2")),
    updatedAt: fc.constantFrom("u1", "u2", "u3", "u4"),
    gone: fc.boolean(),
    issueState: fc.option(fc.constantFrom("open" as const, "closed" as const)),
    refused: fc.boolean(),
    closedForRemoval: fc.boolean(),
  })
  .map((r) => ({
    status: r.status,
    severity: r.severity,
    assetId: r.assetId,
    updatedAt: r.updatedAt,
    ...(r.gone ? { gone: true } : {}),
    ...(r.issueState
      ? { issue: { repo: "acme/sec", number: 3, url: URL, state: r.issueState, hash: "h" } }
      : {}),
    ...(r.refused ? { refused: { action: "update", reason: "locked", at: "t" } } : {}),
    ...(r.closedForRemoval ? { closedForRemoval: true } : {}),
  }));

/** The intake of one stream item as the shell does it: the record, and whether work became due. */
function intake(
  before: ThreatRecord | undefined,
  item: ThreatVersion,
): { record: ThreatRecord | undefined; due: boolean } {
  const result = applyThreatVersion(before, item);
  return result.kind === "redelivery" ? { record: before, due: false } : { record: result.record, due: true };
}

describe("transition properties", () => {
  it("spec Events: the same stream item applied twice is a re-delivery: no change, no due work", () => {
    fc.assert(
      fc.property(fc.option(record, { nil: undefined }), version, (before, item) => {
        const once = intake(before, item);
        const twice = intake(once.record, item);
        expect(twice.due).toBe(false);
        expect(twice.record).toBe(once.record);
      }),
      { numRuns: 500 },
    );
  });

  it("any delivery order with duplicates: the record holds the last version applied and keeps what the connector wrote", () => {
    fc.assert(
      fc.property(record, fc.array(version, { minLength: 1, maxLength: 12 }), (start, items) => {
        let current: ThreatRecord | undefined = start;
        for (const item of items) current = intake(current, item).record;
        const last = items[items.length - 1];
        if (!current || !last) throw new Error("unreachable: items is not empty");
        expect([current.status, current.updatedAt]).toEqual([last.status, last.updatedAt]);
        expect(current.gone).toBeUndefined();
        // The mapping, refusals and the removal close are the connector's: no stream version undoes them.
        expect(current.issue).toEqual(start.issue);
        expect(current.refused).toEqual(start.refused);
        expect(current.closedForRemoval).toEqual(start.closedForRemoval);
      }),
      { numRuns: 300 },
    );
  });

  it("README Conflicts: a person's change is never dropped by later stream versions, whatever they make due", () => {
    const person: PersonChange = {
      event: "closed",
      reason: "completed",
      login: "alice",
      repo: "acme/sec",
      number: 3,
      url: URL,
      seenAt: "t0",
    };
    const view = (v: ThreatVersion) => ({
      view: {
        id: "t",
        title: null,
        description: null,
        severity: null,
        severityRank: v.severityRank,
        module: null,
        status: v.status,
        ageDays: null,
        assetId: v.assetId,
        moduleData: null,
        updatedAt: v.updatedAt,
      },
      link: null,
    });
    const issue = { repo: "acme/sec", number: 3, url: URL, state: "open" as const, hash: "h" };
    const mapped = { status: "unsolved", severity: 2, assetId: null, updatedAt: "u0", issue };
    fc.assert(
      fc.property(
        fc.array(fc.record({ item: version, plansCreate: fc.boolean(), nothingDue: fc.boolean() }), {
          maxLength: 12,
        }),
        (stream) => {
          const change = personChange(
            mapped,
            { ...issue, state: "closed", stateReason: "completed" },
            null,
            "t0",
          );
          if (change.kind !== "person") throw new Error("a person's close is a person's change");
          let entry: QueueEntry | undefined = withWork(
            undefined,
            { person: change.person },
            { seq: 1, now: "t0" },
          );
          let current: ThreatRecord | undefined = mapped;
          for (const { item, plansCreate, nothingDue } of stream) {
            const result = applyThreatVersion(current, item);
            if (result.kind === "redelivery") continue;
            current = result.record;
            // The shell: nothing due drops only the create's view; due work adds to the entry.
            entry = nothingDue
              ? withoutPending(entry)
              : withWork(entry, plansCreate ? { pending: view(item) } : {}, { seq: 9, now: "t" });
          }
          expect(entry?.person).toEqual({ ...person, login: "unknown" });
          expect(entry?.seq).toBe(1);
          expect(current?.issue).toEqual(issue);
        },
      ),
      { numRuns: 300 },
    );
  });
});
