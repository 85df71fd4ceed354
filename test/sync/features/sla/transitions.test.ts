import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../../src/shared/duration.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import {
  breachDue,
  slaBreachAdded,
  slaBreachRemoved,
  slaMilestoneSet,
  slaSinceRecovered,
  slaShown,
  sundayOfWeek,
  weeklyMilestone,
  withSla,
  type SlaInput,
} from "../../../../src/sync/features/sla/transitions.js";
import { featured, slaOf, type Spelled } from "../../feature-fields.js";

/** Contract, "Workflow" → "SLA": the due date's transitions, pure. */

const NOW = Date.parse("2026-11-25T10:00:00.000Z"); // a Wednesday
const iso = (ms: number): string => new Date(ms).toISOString();

function record(extra: Partial<Spelled> = {}): ThreatRecord {
  return featured({ status: "unsolved", severity: 4, assetId: null, updatedAt: "u", ...extra });
}
const input = (extra: Partial<SlaInput> = {}): SlaInput => ({
  nowMs: NOW,
  durationMs: 7 * DAY_MS,
  detectedAtMs: null,
  restartOnReopen: false,
  ...extra,
});
const issue = { repo: "acme/sec", number: 7, url: "u", state: "open" as const, hash: "h" };

describe("withSla: the due date is the first unsolved sighting plus the severity's duration", () => {
  it("a first sighting unsolved starts it now; the due date is now plus the duration", () => {
    const after = withSla(undefined, record(), input());
    expect(slaOf(after)).toEqual({ since: iso(NOW), due: iso(NOW + 7 * DAY_MS) });
  });

  it("`fields.threat.detected_at`, when given and parseable, is the start instead of the sighting", () => {
    const detected = NOW - 3 * DAY_MS;
    const after = withSla(undefined, record(), input({ detectedAtMs: detected }));
    expect(slaOf(after)).toEqual({ since: iso(detected), due: iso(detected + 7 * DAY_MS) });
  });

  it("a severity left out of `sla` has no due date (and loses one it had)", () => {
    expect(slaOf(withSla(undefined, record(), input({ durationMs: null })))).toBeUndefined();
    const had = record({ sla: { since: iso(NOW), due: iso(NOW + DAY_MS) } });
    expect(slaOf(withSla(had, had, input({ durationMs: null })))).toBeUndefined();
  });

  it("a threat first seen in another status gets none; one that leaves unsolved keeps its own", () => {
    expect(slaOf(withSla(undefined, record({ status: "solved" }), input()))).toBeUndefined();
    const sla = { since: iso(NOW - DAY_MS), due: iso(NOW + 6 * DAY_MS) };
    const solved = record({ status: "solved", sla });
    expect(slaOf(withSla(record({ sla }), solved, input()))).toEqual(sla);
  });

  it("a later unsolved version keeps `since`; a severity change moves the due date and forgets a breach of the old one", () => {
    const since = NOW - 10 * DAY_MS;
    const sla = { since: iso(since), due: iso(since + 7 * DAY_MS), breach: "added" as const };
    const same = record({ sla });
    expect(withSla(same, same, input({ nowMs: NOW + DAY_MS }))).toBe(same);
    const lower = withSla(same, same, input({ durationMs: 30 * DAY_MS }));
    expect(slaOf(lower)).toEqual({ since: iso(since), due: iso(since + 30 * DAY_MS) });
  });

  it("a reopen keeps the due date (and its breach) unless `restart_on_reopen`, which starts it again now", () => {
    const sla = { since: iso(NOW - 40 * DAY_MS), due: iso(NOW - 33 * DAY_MS), breach: "added" as const };
    const before = record({ status: "solved", sla });
    const reopened = record({ sla });
    expect(slaOf(withSla(before, reopened, input()))).toEqual(sla);
    expect(slaOf(withSla(before, reopened, input({ restartOnReopen: true })))).toEqual({
      since: iso(NOW),
      due: iso(NOW + 7 * DAY_MS),
    });
  });
});

describe("breach and milestone state", () => {
  const past = { since: iso(NOW - 8 * DAY_MS), due: iso(NOW - DAY_MS) };

  it("the breach label is due on an open issue past its due date, once: not after it was added or removed by a person", () => {
    expect(breachDue(record({ issue, sla: past }), NOW)).toBe(true);
    expect(breachDue(record({ issue, sla: { ...past, due: iso(NOW + 1) } }), NOW)).toBe(false);
    expect(breachDue(record({ issue: { ...issue, state: "closed" }, sla: past }), NOW)).toBe(false);
    expect(breachDue(record({ issue, sla: past, gone: true }), NOW)).toBe(false);
    expect(breachDue(record({ sla: past }), NOW)).toBe(false);
    expect(breachDue(slaBreachAdded(record({ issue, sla: past })), NOW)).toBe(false);
    expect(breachDue(slaBreachRemoved(slaBreachAdded(record({ issue, sla: past }))), NOW)).toBe(false);
  });

  it("the weekly milestone is the Sunday ending the due date's (Monday-first) week, in UTC", () => {
    expect(sundayOfWeek(Date.parse("2026-11-25T10:00:00Z"))).toBe("2026-11-29");
    expect(sundayOfWeek(Date.parse("2026-11-29T23:59:59Z"))).toBe("2026-11-29");
    expect(sundayOfWeek(Date.parse("2026-11-30T00:00:00Z"))).toBe("2026-12-06");
    expect(weeklyMilestone({ since: iso(NOW), due: "2026-12-01T00:00:00.000Z" })).toEqual({
      title: "SLA 2026-12-06",
      dueOn: "2026-12-06",
    });
    expect(slaOf(slaMilestoneSet(record({ sla: past }), "SLA 2026-11-29"))?.milestone).toBe("SLA 2026-11-29");
  });

  it("what templates see: the due day, whole days left (0 on the day, negative past it), breached", () => {
    const sla = { since: iso(NOW), due: "2026-12-02T09:00:00.000Z" };
    const scope = (nowMs: number): unknown => slaShown(sla, nowMs).scope?.["sla"];
    expect(scope(NOW)).toEqual({ due: "2026-12-02", days_left: 7, breached: false });
    expect(slaShown(sla, NOW)).toMatchObject({ lines: ["**Due: 2026-12-02**"], dueDay: "2026-12-02" });
    expect(scope(Date.parse("2026-12-02T08:00:00Z"))).toMatchObject({ days_left: 0, breached: false });
    expect(scope(Date.parse("2026-12-02T09:00:00Z"))).toMatchObject({ days_left: 0, breached: true });
    expect(scope(Date.parse("2026-12-05T00:00:00Z"))).toMatchObject({ days_left: -3, breached: true });
    // A threat without an SLA: `sla` is null in the templates, and the issue shows nothing of it.
    expect(slaShown(undefined, NOW)).toEqual({ scope: { sla: null } });
  });
});

describe("bad input never crashes a cycle", () => {
  it("a duration past what a date holds (999999999w) keeps the due date at the last representable time", () => {
    const after = withSla(undefined, record(), input({ durationMs: 999_999_999 * 7 * DAY_MS }));
    expect(slaOf(after)?.due).toBe(new Date(8.64e15).toISOString());
  });
});

describe("a lost state file does not restart an SLA (its start is a hidden line of the issue)", () => {
  const restarted = { since: "2026-11-28T00:00:00.000Z", due: "2026-12-05T00:00:00.000Z" };
  const base = { status: "unsolved", severity: 4, assetId: null, updatedAt: "u" } as const;

  it("an adopted issue's earlier start gives back the first start and the due date, with the record's duration", () => {
    expect(
      slaOf(slaSinceRecovered(featured({ ...base, sla: restarted }), "2026-11-25T00:00:00.000Z")),
    ).toEqual({
      since: "2026-11-25T00:00:00.000Z",
      due: "2026-12-02T00:00:00.000Z",
    });
  });

  it("no line, a later start (a restart the record has already), or no SLA: the record as it is", () => {
    const record = featured({ ...base, sla: restarted });
    expect(slaSinceRecovered(record, null)).toBe(record);
    expect(slaSinceRecovered(record, "2026-11-29T00:00:00.000Z")).toBe(record);
    expect(slaSinceRecovered(base, "2026-11-25T00:00:00.000Z")).toBe(base);
  });

  it("an adopted issue already in its weekly milestone is recorded there, so the sweep does not put it there again", () => {
    const record = featured({ ...base, sla: restarted });
    const title = weeklyMilestone(restarted).title;
    expect(slaOf(slaSinceRecovered(record, null, title))).toEqual({ ...restarted, milestone: title });
    // Another milestone (a person moved it, or the due week changed): the sweep decides.
    expect(slaSinceRecovered(record, null, "Q4 backlog")).toBe(record);
  });
});
