import { describe, expect, it } from "vitest";
import type { IssueRecord, PersonChange, ThreatRecord } from "../../../src/sync/schema.js";
import {
  applyIssueSeen,
  personChange,
  personChangeSeen,
  type IssueSeen,
} from "../../../src/sync/transitions/issue-seen.js";
import { featured, spelled } from "../feature-fields.js";
import { markerAdopted, markerNumberOf } from "../../../src/sync/features/registry.js";
import { parseMarkerFound } from "../../../src/shared/index.js";
import { makeConfig } from "../harness.js";

/** The recurrence switched off: a marker's number is still kept (a marker outlives a setting). */
const OFF = makeConfig();

const URL = "https://github.test/acme/sec/issues/3";
const seen: IssueSeen = { repo: "acme/sec", number: 3, url: URL, state: "open", stateReason: null };
const asRecord: IssueRecord = { repo: "acme/sec", number: 3, url: URL, state: "open", hash: "h" };
const mapped: ThreatRecord & { issue: IssueRecord } = {
  status: "unsolved",
  severity: 2,
  assetId: null,
  updatedAt: "u",
  issue: asRecord,
};
const person: PersonChange = {
  event: "closed",
  reason: "completed",
  login: "alice",
  repo: "acme/sec",
  number: 3,
  url: URL,
  seenAt: "t0",
};

describe("issue seen transition (an issue GitHub answered → adoption, or a person's change)", () => {
  it("contract: an issue carrying the marker of a threat the state does not map is adopted, never duplicated", () => {
    expect(applyIssueSeen(undefined, seen, asRecord)).toEqual({
      kind: "adopt",
      record: { status: "unknown", severity: 0, assetId: null, updatedAt: "", issue: asRecord },
    });
    const { issue: _lost, ...known } = mapped;
    expect(applyIssueSeen({ ...known, gone: true }, seen, asRecord)).toEqual({
      kind: "adopt",
      record: { ...known, gone: true, issue: asRecord },
    });
  });

  it("contract, Recurrence: an adopted issue's marker says which occurrence it is, so the next recurrence gets the one after it", () => {
    const T = "00000000-0000-4000-8000-00000000000a";
    const third = { ...seen, body: `text\n<!-- threatbridge:threat=${T} occurrence=3 -->` };
    const { issue: _lost, ...known } = mapped;
    expect(applyIssueSeen(known, third, asRecord)).toEqual({
      kind: "adopt",
      record: { ...known, issue: asRecord },
    });
    // Intake's adopt notes the marker's number: the recurrence's slice holds it, whether configured or not.
    const adopted = markerAdopted(
      OFF,
      { ...known, issue: asRecord },
      parseMarkerFound(third.body)?.occurrence ?? 1,
    );
    expect(spelled(adopted)).toEqual({ ...known, occurrence: 3, issue: asRecord });
    expect(markerNumberOf(OFF, adopted)).toBe(3);
    // The first occurrence's marker has no number: no occurrence is recorded.
    const first = { ...seen, body: `<!-- threatbridge:threat=${T} -->` };
    expect(applyIssueSeen(known, first, asRecord)).toEqual({
      kind: "adopt",
      record: { ...known, issue: asRecord },
    });
    expect(markerAdopted(OFF, { ...known, issue: asRecord }, 1)).toEqual({ ...known, issue: asRecord });
    // An adopted first issue of a threat whose record counted a later one: its number is forgotten.
    expect(markerNumberOf(OFF, markerAdopted(OFF, adopted, 1))).toBe(1);
  });

  it("a second issue with the marker, or one the platform's link does not name, is left alone", () => {
    expect(applyIssueSeen(mapped, { ...seen, number: 4 }, { ...asRecord, number: 4 })).toEqual({
      kind: "duplicate",
      by: "mapping",
      mapped: "acme/sec#3",
    });
    const { issue: _lost, ...linked } = mapped;
    expect(applyIssueSeen({ ...linked, link: "acme/sec#9" }, seen, asRecord)).toEqual({
      kind: "duplicate",
      by: "link",
      mapped: "acme/sec#9",
    });
  });

  it("README, Deleted issues: a copy of a deleted issue's marker is not adopted", () => {
    const { issue: _deleted, ...rest } = mapped;
    const record = { ...rest, deletedIssue: { repo: "acme/sec", number: 3, at: "t" } };
    expect(applyIssueSeen(record, seen, asRecord)).toEqual({ kind: "ignored" });
  });

  it("an issue showing a state the connector did not write is a person's change, unless it is the connector's own write in flight", () => {
    const closed = { state: "closed" as const };
    expect(personChangeSeen(mapped, undefined, closed, [])).toEqual({ kind: "candidate" });
    expect(personChangeSeen(mapped, undefined, closed, ["closed"])).toEqual({ kind: "none" });
    expect(personChangeSeen(mapped, undefined, { state: "open" }, [])).toEqual({ kind: "none" });
  });

  it("a person who undid their own change before the connector acted is forgotten; the rest of the entry stays", () => {
    const entry = { seq: 4, enqueuedAt: "t", attempts: 1, person };
    expect(personChangeSeen(mapped, entry, { state: "open" }, [])).toEqual({
      kind: "undone",
      entry: { seq: 4, enqueuedAt: "t", attempts: 1 },
    });
  });

  it("a person's close becomes verdict work naming them; our own App's close only moves the record", () => {
    const closed: IssueSeen = { ...seen, state: "closed", stateReason: "not_planned" };
    expect(personChange(mapped, closed, { login: "alice", viaApp: false, bySelf: false }, "t1")).toEqual({
      kind: "person",
      person: { ...person, reason: "not_planned", seenAt: "t1" },
    });
    expect(personChange(mapped, closed, null, "t1")).toMatchObject({
      kind: "person",
      person: { login: "unknown" },
    });
    expect(personChange(mapped, closed, { login: "bot", viaApp: true, bySelf: true }, "t1")).toEqual({
      kind: "by_app",
      record: { ...mapped, issue: { ...asRecord, state: "closed" } },
    });
  });

  it("risk acceptance: a not-planned close keeps the labels it was closed with; other changes keep none", () => {
    const labelled: IssueSeen = {
      ...seen,
      state: "closed",
      stateReason: "not_planned",
      labels: ["bug", "risk-accepted"],
    };
    expect(personChange(mapped, labelled, null, "t1")).toMatchObject({
      person: { reason: "not_planned", labels: ["bug", "risk-accepted"] },
    });
    const completed: IssueSeen = { ...labelled, stateReason: "completed" };
    const done = personChange(mapped, completed, null, "t1");
    expect(done).toMatchObject({ kind: "person", person: { reason: "completed" } });
    expect(done.kind === "person" ? done.person.labels : "not a person's").toBeUndefined();
  });

  it("recurrence: an earlier occurrence's issue is left alone, neither a duplicate nor a person's change", () => {
    const second = featured({ ...mapped, occurrence: 2, issue: { ...asRecord, number: 9 } });
    // The record's marker number is the recurrence's (its slice), asked of the features.
    expect(markerNumberOf(OFF, second)).toBe(2);
    const old: IssueSeen = { ...seen, body: "<!-- threatbridge:threat=t -->" };
    expect(applyIssueSeen(second, old, asRecord, markerNumberOf(OFF, second))).toEqual({ kind: "ignored" });
    // A copy of the current occurrence elsewhere is still a duplicate.
    const copy: IssueSeen = { ...seen, body: "<!-- threatbridge:threat=t occurrence=2 -->" };
    expect(applyIssueSeen(second, copy, asRecord, markerNumberOf(OFF, second))).toMatchObject({
      kind: "duplicate",
    });
  });
});
