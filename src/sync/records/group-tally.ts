import type { GroupRecord } from "../schema.js";

/**
 * How many group records a state's `groups` holds, and how many of those are superseded (an older
 * grouping setting's, groups/supersede.ts), without walking them. The planner asks whether any
 * group is stored once per threat it plans, and a group's plan asks for the superseded records: a
 * walk each time (`for…in`, `Object.entries`) cost O(groups), as V8 keeps no key cache for an
 * object of thousands of keys written one by one (a dictionary): 3 of the 10 s of a dry run of
 * 20,000 threats in 978 groups. Counted once when first asked for an object, then kept by the one
 * writer of `groups` (state-updates.ts `putGroup`, noteGroupWrite); another object (a reloaded
 * state, a dry run's copy) is counted afresh when first asked.
 */
export interface GroupTally {
  all: number;
  superseded: number;
}

type Groups = Readonly<Record<string, GroupRecord>>;

const NONE: Readonly<GroupTally> = Object.freeze({ all: 0, superseded: 0 });
const tallies = new WeakMap<Groups, GroupTally>();

export function groupTally(groups: Groups | undefined): Readonly<GroupTally> {
  if (groups === undefined) return NONE;
  let tally = tallies.get(groups);
  if (tally === undefined) {
    tally = { all: 0, superseded: 0 };
    for (const key in groups) {
      if (!Object.hasOwn(groups, key)) continue;
      tally.all += 1;
      if (groups[key]?.superseded !== undefined) tally.superseded += 1;
    }
    tallies.set(groups, tally);
  }
  return tally;
}

/** Keeps the tally of `groups` (when it was counted) through a write of one key: `before` → `after`. */
export function noteGroupWrite(
  groups: Groups,
  before: GroupRecord | undefined,
  after: GroupRecord | undefined,
): void {
  const tally = tallies.get(groups);
  if (tally === undefined) return;
  tally.all += (after === undefined ? 0 : 1) - (before === undefined ? 0 : 1);
  tally.superseded += (after?.superseded === undefined ? 0 : 1) - (before?.superseded === undefined ? 0 : 1);
}
