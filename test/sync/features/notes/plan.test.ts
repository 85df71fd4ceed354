import { describe, expect, it } from "vitest";
import type { RepoCommentSnapshot } from "../../../../src/github/index.js";
import { NotesConfig } from "../../../../src/config/notes.js";
import { ConfigSchema } from "../../../../src/config/index.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { isPersonComment } from "../../../../src/sync/features/notes/intake.js";
import { desiredSection, noteDue, sectionScope } from "../../../../src/sync/features/notes/plan.js";
import { sectionHash } from "../../../../src/sync/features/notes/section.js";
import { changeSlice, mergeComments, readSlice } from "../../../../src/sync/features/notes/slice.js";
import { featured } from "../../feature-fields.js";

const config = NotesConfig.parse({});
const ID = "00000000-0000-4000-8000-000000000001";
const record: ThreatRecord = featured({
  status: "unsolved",
  severity: 3,
  assetId: "a",
  updatedAt: "2026-01-01T00:00:00Z",
  issue: { repo: "acme/t", number: 7, url: "https://github.com/acme/t/issues/7", state: "closed", hash: "h" },
  sla: { since: "2026-01-01T00:00:00Z", due: "2026-01-08T00:00:00Z" },
});

describe("the notes' plan (contract, notes: written only when the section's text changes)", () => {
  it("renders the issue, state and close reason, assignees, milestone, due date and people's comments", () => {
    const r = changeSlice(record, () => ({
      r: "not_planned",
      a: ["alice", "bob"],
      m: "SLA 2026-01-11",
      c: [[1, "carol", "2026-01-02T10:00:05Z", "Accepted for now."]],
    }));
    const section = desiredSection(config, r) ?? "";
    expect(section).toBe(
      [
        "--- threatbridge: GitHub ---",
        "Issue: acme/t#7 https://github.com/acme/t/issues/7",
        "State: closed (not_planned)",
        "Assignees: alice, bob",
        "Milestone: SLA 2026-01-11",
        "Due: 2026-01-08",
        "",
        "carol at 2026-01-02 10:00 UTC:",
        "Accepted for now.",
        "--- threatbridge: end ---",
      ].join("\n"),
    );
  });

  it("plans a write when nothing was written, and nothing once the write settled (the slice holds its hash)", () => {
    const due = noteDue(config, "note", ID, record);
    expect(due?.hash).toBe(sectionHash(due?.section ?? ""));
    const settled = changeSlice(record, (s) => ({ ...s, w: due?.hash }));
    expect(noteDue(config, "note", ID, settled)).toBeNull();
  });

  it("the echo changes nothing the section shows: a new platform version plans nothing", () => {
    const due = noteDue(config, "note", ID, record);
    const settled = changeSlice(record, (s) => ({ ...s, w: due?.hash }));
    const echoed = { ...settled, updatedAt: "2026-01-01T00:01:00Z" };
    expect(noteDue(config, "note", ID, echoed)).toBeNull();
  });

  it("no issue, a gone threat, or no note on reads: nothing", () => {
    const { issue: _none, ...noIssue } = record;
    expect(noteDue(config, "note", ID, noIssue)).toBeNull();
    expect(noteDue(config, "note", ID, { ...record, gone: true })).toBeNull();
    expect(
      noteDue(
        config,
        "note",
        ID,
        changeSlice(record, () => ({ n: 1 })),
      ),
    ).toBeNull();
  });

  it("a template replaces the default body, with the same scope", () => {
    const templated = ConfigSchema.shape.notes.parse({ template: "{{ issue.ref }} is {{ issue.state }}" });
    expect(templated && desiredSection(templated, record)).toBe(
      "--- threatbridge: GitHub ---\nacme/t#7 is closed\n--- threatbridge: end ---",
    );
    expect(sectionScope(record, {})?.issue.due).toBe("2026-01-08");
  });

  it("a bad template is a config error naming the variable", () => {
    const parsed = NotesConfig.safeParse({ template: "{{ issue.nope }}" });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("issue.nope");
  });

  it("the slice keeps the last N comments, an edit replacing its comment, and drops empty keys", () => {
    const merged = mergeComments(
      [[1, "a", "2026-01-01T00:00:00Z", "one"]],
      [
        [2, "b", "2026-01-02T00:00:00Z", "two"],
        [1, "a", "2026-01-01T00:00:00Z", "one, edited"],
        [3, "c", "2026-01-03T00:00:00Z", "three"],
      ],
      2,
    );
    expect(merged.map((c) => c[3])).toEqual(["two", "three"]);
    expect(changeSlice(record, () => ({ c: [] })).slices?.["notes"]).toBeUndefined();
    expect(readSlice(changeSlice(record, () => ({ w: "x" })))).toEqual({ w: "x" });
  });

  it("the last N comments are the last by the instant each was created, not by its text: …:00.500Z is after …:00Z, and …T01:00:01+01:00 after …T00:00:00.500Z", () => {
    const merged = mergeComments(
      [],
      [
        [1, "a", "2026-01-01T00:00:00.500Z", "second"],
        [2, "b", "2026-01-01T00:00:00Z", "first"],
        [3, "c", "2026-01-01T01:00:01+01:00", "third"],
      ],
      2,
    );
    expect(merged.map((c) => c[3])).toEqual(["second", "third"]);
  });
});

describe("the comment intake: people's comments only", () => {
  const base: RepoCommentSnapshot = {
    id: 1,
    repo: "acme/t",
    issueNumber: 7,
    body: "Patched.",
    author: "alice",
    authorType: "User",
    viaApp: null,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
  };
  it("keeps a person's, leaves out bots', the connector's login, its keyed comments and ghosts", () => {
    expect(isPersonComment(base, "tb-bot")).toBe(true);
    expect(isPersonComment({ ...base, viaApp: { id: 5, clientId: null } }, "tb-bot")).toBe(true);
    expect(isPersonComment({ ...base, authorType: "Bot", author: "dependabot[bot]" }, null)).toBe(false);
    expect(isPersonComment({ ...base, author: "TB-Bot" }, "tb-bot")).toBe(false);
    expect(isPersonComment({ ...base, body: "x\n<!-- threatbridge:comment=i3 -->" }, null)).toBe(false);
    expect(isPersonComment({ ...base, author: null }, null)).toBe(false);
  });
});
