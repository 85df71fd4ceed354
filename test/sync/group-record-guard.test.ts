import { describe, expect, it } from "vitest";
import { GroupIssue, GroupMember, GroupParent, GroupRecord } from "../../src/sync/schema.js";
import {
  GROUP_ISSUE_FIELDS,
  GROUP_MEMBER_FIELDS,
  GROUP_PARENT_FIELDS,
  GROUP_RECORD_FIELDS,
  plainGroup,
  toGroupRecord,
} from "../../src/sync/records/group-record-guard.js";

// Groups with every field of the schema set (a parent-mode one and a single-mode one).
const MEMBER = {
  title: "CVE-1: x <y>",
  severity: 3,
  status: "unsolved",
  assetId: null,
  repo: "acme/sec",
  verdictAt: "2026-01-02T03:04:05.000Z",
} satisfies GroupMember;
const PARENT = {
  number: 40,
  id: 9_000_000_040,
  url: "https://github.com/acme/sec/issues/40",
  state: "open",
  hash: "h40",
  attached: ["t1", "t3"],
  checklistOnly: "full",
  refused: "locked",
  retired: "closed",
} satisfies GroupParent;
const ISSUE = {
  number: 41,
  id: 9_000_000_041,
  url: "https://github.com/acme/sec/issues/41",
  state: "closed",
  hash: "h41",
  person: { event: "closed", reason: null, login: "alice", seenAt: "t", targets: ["t1"], pending: [] },
  closedByPerson: ["t1"],
  refused: "gone",
  retired: "noted",
} satisfies GroupIssue;
const FULL = {
  by: "asset",
  key: "a1",
  members: { t1: MEMBER, t3: { title: "three", severity: 0 } },
  parents: { "acme/sec": PARENT },
  single: { "acme/sec": ISSUE },
  mode: "parent",
  superseded: "2026-01-01T00:00:00.000Z",
  slices: { project: "i=1" },
} satisfies GroupRecord;
const { person: _person, ...ISSUE_NO_PERSON } = ISSUE;
const PLAIN = { ...FULL, single: { "acme/sec": ISSUE_NO_PERSON } };

describe("the stored-group guard checks what the schema does (src/sync/schema.ts GroupRecord), without its parse", () => {
  it("names exactly the schema's fields of a group, a member, a parent and an issue", () => {
    expect([...GROUP_RECORD_FIELDS].sort()).toEqual(Object.keys(GroupRecord.shape).sort());
    expect([...GROUP_MEMBER_FIELDS].sort()).toEqual(Object.keys(GroupMember.shape).sort());
    expect([...GROUP_PARENT_FIELDS].sort()).toEqual(Object.keys(GroupParent.shape).sort());
    expect([...GROUP_ISSUE_FIELDS].sort()).toEqual(Object.keys(GroupIssue.shape).sort());
    expect(Object.keys(FULL).sort()).toEqual(Object.keys(GroupRecord.shape).sort());
    expect(Object.keys(ISSUE).sort()).toEqual(Object.keys(GroupIssue.shape).sort());
  });

  it("gives a group as the connector writes it back as itself, equal to the schema's parse", () => {
    const group = structuredClone(PLAIN);
    expect(plainGroup(group)).toBe(group);
    expect(toGroupRecord(group)).toEqual(GroupRecord.parse(structuredClone(PLAIN)));
  });

  it("hands a rarer shape (a person's change still to send) or an unknown key to the schema, as before", () => {
    expect(plainGroup(structuredClone(FULL))).toBeNull();
    expect(toGroupRecord(structuredClone(FULL))).toEqual(FULL);
    // The schema strips a key it does not know: the guard must not keep it.
    const extra = { ...structuredClone(PLAIN), later: 1 };
    expect(plainGroup(extra)).toBeNull();
    expect(toGroupRecord(extra)).toEqual(PLAIN);
    const memberExtra = { ...structuredClone(PLAIN), members: { t1: { ...MEMBER, x: 1 } } };
    expect(plainGroup(memberExtra)).toBeNull();
  });

  it("refuses a stored group whose field has the wrong type, for every field of every part", () => {
    const wrong = { wrong: [1] };
    const cases: [string, unknown][] = [
      ...GROUP_RECORD_FIELDS.map((f): [string, unknown] => [f, { ...structuredClone(PLAIN), [f]: wrong }]),
      ...GROUP_MEMBER_FIELDS.map((f): [string, unknown] => [
        `member.${f}`,
        { ...structuredClone(PLAIN), members: { t1: { ...MEMBER, [f]: wrong } } },
      ]),
      ...GROUP_PARENT_FIELDS.map((f): [string, unknown] => [
        `parent.${f}`,
        { ...structuredClone(PLAIN), parents: { r: { ...PARENT, [f]: wrong } } },
      ]),
      ...GROUP_ISSUE_FIELDS.map((f): [string, unknown] => [
        `single.${f}`,
        { ...structuredClone(PLAIN), single: { r: { ...ISSUE_NO_PERSON, [f]: wrong } } },
      ]),
      ["severity 5", { ...structuredClone(PLAIN), members: { t1: { ...MEMBER, severity: 5 } } }],
      ["number 0", { ...structuredClone(PLAIN), parents: { r: { ...PARENT, number: 0 } } }],
      ["attached of numbers", { ...structuredClone(PLAIN), parents: { r: { ...PARENT, attached: [1] } } }],
      ["by unknown", { ...structuredClone(PLAIN), by: "owner" }],
    ];
    for (const [what, group] of cases) {
      expect(plainGroup(group), what).toBeNull();
      expect(() => toGroupRecord(group), what).toThrow();
    }
  });
});
