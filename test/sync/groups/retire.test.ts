import { describe, expect, it } from "vitest";
import type { GroupRecord } from "../../../src/sync/schema.js";
import { groupActionModules } from "../../../src/sync/actions/index.js";
import {
  CARRIERS_LISTED,
  planRetire,
  retireComment,
  type RetireInput,
} from "../../../src/sync/groups/retire-plan.js";
import { modeOf } from "../../../src/sync/groups/supersede.js";
import { groupRetired } from "../../../src/sync/transitions/group.js";
import {
  retiredGroupBody,
  parseGroupMarker,
  isGroupIssue,
  groupMarkerFor,
} from "../../../src/shared/index.js";

/**
 * Contract, "Workflow" → "Changing grouping": the old setting's parents and group issues are
 * closed (`not_planned`) with a comment that says why and names the issues that carry their
 * members now, once those exist; a person's change still unabsorbed goes first; no group marker is
 * carried by a second issue.
 */

const REPO = "acme/threats";
const GROUP = "superseded:1:group:asset:a1";

function input(over: Partial<RetireInput> = {}): RetireInput {
  return {
    groupId: GROUP,
    repo: REPO,
    number: 7,
    issueKind: "single",
    retired: undefined,
    refused: false,
    personPending: false,
    carriers: [`${REPO}#12`, `${REPO}#9`],
    was: "`by: asset, mode: single`",
    now: "off (no `grouping`)",
    ...over,
  };
}

describe("changing grouping: retiring the old setting's issues (pure)", () => {
  it("an old issue is closed once the issues carrying its members exist, then commented; then nothing", () => {
    expect(planRetire(input()).map((a) => a.kind)).toEqual(["group_retire"]);
    expect(planRetire(input({ retired: "closed" })).map((a) => a.kind)).toEqual(["group_retire_note"]);
    expect(planRetire(input({ retired: "noted" }))).toEqual([]);
  });

  it("it waits while a member waits for its new issue, while a person's change is unabsorbed, and for an issue GitHub refused", () => {
    expect(planRetire(input({ carriers: null }))).toEqual([]);
    expect(planRetire(input({ personPending: true }))).toEqual([]);
    expect(planRetire(input({ refused: true }))).toEqual([]);
  });

  it("the comment says why (old and new setting) and names the carrying issues in order, at most 100 of them", () => {
    const text = retireComment(input());
    expect(text).toContain("grouping setting changed");
    expect(text).toContain("`by: asset, mode: single`");
    expect(text).toContain("off (no `grouping`)");
    expect(text).toContain(`${REPO}#9, ${REPO}#12`);
    const many = Array.from({ length: CARRIERS_LISTED + 5 }, (_, i) => `${REPO}#${i + 1}`);
    expect(retireComment(input({ carriers: many }))).toContain("and 5 more");
    expect(retireComment(input({ carriers: [] }))).toContain("None of its threats needs an issue");
  });

  it("a retired issue carries no group marker any more: no marker search, listing or poll takes it for its group's", () => {
    const body = `Threats grouped by asset\n\n${groupMarkerFor("asset", "a1")}\n<!-- threatbridge:rev=abc -->\n`;
    const retired = retiredGroupBody(body);
    expect(parseGroupMarker(retired)).toBeNull();
    expect(isGroupIssue(retired)).toBe(false);
    expect(retired).toContain("<!-- threatbridge:retired-group=asset:a1 -->");
    expect(retiredGroupBody(retired)).toBe(retired);
  });

  it("the close and the comment settle as steps of the record; once every issue is noted the members are let go", () => {
    const group: GroupRecord = {
      by: "asset",
      key: "a1",
      members: { t1: { title: "T", severity: 2, status: "unsolved", repo: REPO } },
      parents: {},
      single: { [REPO]: { number: 7, url: "u", state: "open", hash: "h" } },
      mode: "single",
      superseded: "2026-11-26T00:00:00.000Z",
    };
    const ref = { groupId: GROUP, repo: REPO, number: 7, issueKind: "single" as const };
    const closed = groupActionModules.group_retire.settle({ kind: "group_retire", ...ref }, { gone: false });
    const afterClose = closed.group?.change(group);
    expect(afterClose?.single?.[REPO]).toMatchObject({ state: "closed", retired: "closed" });
    expect(afterClose?.members).toEqual(group.members);
    const note = { kind: "group_retire_note" as const, ...ref, body: "why" };
    expect(groupActionModules.group_retire_note.intent?.(note)?.fields).toMatchObject({
      kind: "comment",
      threatId: GROUP,
      number: 7,
      body: "why",
    });
    const noted = groupActionModules.group_retire_note
      .settle(note, { posted: true })
      .group?.change(afterClose!);
    expect(noted?.single?.[REPO]?.retired).toBe("noted");
    expect(noted?.members).toEqual({});
    // A deleted issue has nothing left to retire.
    const gone = groupActionModules.group_retire.settle({ kind: "group_retire", ...ref }, { gone: true });
    expect(gone.group?.change(group).single?.[REPO]?.retired).toBe("noted");
    expect(groupRetired(group, "parent", REPO, "closed")).toEqual(group);
  });

  it("the mode a record was made under: kept since this change, inferred from its contents before", () => {
    const base = { by: "asset" as const, key: "a1", parents: {} };
    expect(modeOf({ ...base, members: {}, mode: "single" })).toBe("single");
    expect(
      modeOf({ ...base, members: { t: { title: "T", severity: 1, repo: REPO, status: "unsolved" } } }),
    ).toBe("single");
    expect(modeOf({ ...base, members: { t: { title: "T", severity: 1 } } })).toBe("parent");
  });
});
