import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyState, type GroupRecord } from "../../../src/sync/schema.js";
import { anyGroupStored } from "../../../src/sync/records/group-members.js";
import { groupTally } from "../../../src/sync/records/group-tally.js";
import { createStateContext, putGroup } from "../../../src/sync/records/state-updates.js";

/**
 * The stored groups' count and their superseded records' count, kept through every write of
 * `putGroup` (the planner asks per threat, without walking thousands of groups): always what a
 * walk of the groups answers, whether first asked before, between or after the writes.
 */

const group = (superseded: boolean): GroupRecord => ({
  by: "asset",
  key: "k",
  members: {},
  parents: {},
  ...(superseded ? { superseded: "2026-11-28T00:00:00.000Z" } : {}),
});

function walked(groups: Readonly<Record<string, GroupRecord>>): { all: number; superseded: number } {
  const all = Object.values(groups);
  return { all: all.length, superseded: all.filter((g) => g.superseded !== undefined).length };
}

describe("the groups' tally", () => {
  it("matches a walk of the groups after any sequence of writes, the state guard on or off, counted at any point", () => {
    const write = fc.record({
      key: fc.constantFrom("group:asset:a", "group:asset:b", "superseded:1:group:asset:a", "group:cve:c"),
      value: fc.constantFrom("none", "current", "superseded"),
    });
    fc.assert(
      fc.property(fc.array(write, { maxLength: 40 }), fc.nat(40), fc.boolean(), (writes, askAt, freeze) => {
        const ctx = createStateContext(emptyState(), { freeze });
        writes.forEach(({ key, value }, i) => {
          if (i === askAt) groupTally(ctx.state.groups);
          putGroup(ctx, key, value === "none" ? undefined : group(value === "superseded"));
        });
        const groups = ctx.state.groups ?? {};
        expect({ ...groupTally(groups) }).toEqual(walked(groups));
        expect(anyGroupStored(groups)).toBe(Object.keys(groups).length > 0);
      }),
      { numRuns: 300 },
    );
  });

  it("none stored, or no groups at all: zero", () => {
    expect(anyGroupStored(undefined)).toBe(false);
    expect(anyGroupStored({})).toBe(false);
    expect(groupTally(undefined)).toEqual({ all: 0, superseded: 0 });
  });
});
