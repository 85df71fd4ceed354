import { describe, expect, it } from "vitest";
import { planGroupWrites, groupIssues } from "../../../../src/sync/features/project/plan.js";
import {
  decodeGroupSlice,
  encodeGroupSlice,
  valueHash,
} from "../../../../src/sync/features/project/slice.js";
import { groupItemChanged } from "../../../../src/sync/features/project/item-change.js";
import { sliceOf, withSlice } from "../../../../src/sync/features/types.js";
import { emptyState, GroupRecord, State } from "../../../../src/sync/schema.js";
import { ProjectConfig } from "../../../../src/config/project.js";

const G = "group:asset:a1";
const parent = {
  number: 7,
  id: 7007,
  url: "https://github.test/acme/threats/issues/7",
  state: "open" as const,
  hash: "h",
  attached: [],
};
const group: GroupRecord = {
  by: "asset",
  key: "a1",
  members: { t1: { title: "One", severity: 3 } },
  parents: { "acme/threats": parent },
};
const rendered = (text: string) => () => new Map([["Group", text]]);
const added = (fields: Record<string, string> = {}): GroupRecord =>
  withSlice(
    group,
    "project",
    encodeGroupSlice({
      "acme/threats#7": {
        i: 901,
        v: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, valueHash(v)])),
      },
    }),
  );

// Contract, "The conversation back" (projects): a parent or group issue joins the project, once.
describe("the project's plan for a group's issues (pure)", () => {
  it("a parent with no item recorded is added, by its GitHub id, under the group's key as subject", () => {
    expect(planGroupWrites(G, group, rendered("asset: a1"))).toEqual([
      {
        kind: "feature",
        feature: "project",
        step: "add",
        threatId: G,
        repo: "acme/threats",
        number: 7,
        issueId: 7007,
      },
    ]);
  });

  it("a parent recorded before its id was kept is added without it (the add reads the issue once)", () => {
    const { id: _id, ...noId } = parent;
    const [action] = planGroupWrites(G, { ...group, parents: { "acme/threats": noId } }, rendered("x"));
    expect(action).toMatchObject({ step: "add", number: 7 });
    expect(action && "issueId" in action).toBe(false);
  });

  it("then one PATCH of the changed fields, then nothing (the plan settles)", () => {
    expect(planGroupWrites(G, added(), rendered("asset: a1"))).toEqual([
      {
        kind: "feature",
        feature: "project",
        step: "fields",
        threatId: G,
        repo: "acme/threats",
        number: 7,
        itemId: 901,
        values: { Group: "asset: a1" },
      },
    ]);
    expect(planGroupWrites(G, added({ Group: "asset: a1" }), rendered("asset: a1"))).toEqual([]);
  });

  it("an item a person removed (0) is not added again; a refused, retired or superseded group's issue plans nothing", () => {
    const removed = withSlice(group, "project", encodeGroupSlice({ "acme/threats#7": { i: 0, v: {} } }));
    expect(planGroupWrites(G, removed, rendered("x"))).toEqual([]);
    const refused = { ...group, parents: { "acme/threats": { ...parent, refused: "deleted" } } };
    expect(planGroupWrites(G, refused, rendered("x"))).toEqual([]);
    const retired = { ...group, parents: { "acme/threats": { ...parent, retired: "closed" as const } } };
    expect(planGroupWrites(G, retired, rendered("x"))).toEqual([]);
    expect(planGroupWrites(G, { ...group, superseded: "2026-01-01T00:00:00Z" }, rendered("x"))).toEqual([]);
  });

  it("single mode: each repository's group issue gets its own item, keyed by the issue", () => {
    const single: GroupRecord = {
      ...group,
      parents: {},
      mode: "single",
      single: {
        "acme/a": { number: 3, id: 3003, url: "u", state: "open", hash: "h" },
        "acme/b": { number: 4, url: "u", state: "closed", hash: "h" },
      },
    };
    expect(groupIssues(single)).toEqual([
      { repo: "acme/a", number: 3, id: 3003 },
      { repo: "acme/b", number: 4 },
    ]);
    const halfDone = groupItemChanged(single, "acme/a#3", () => ({ i: 5, v: { Group: valueHash("x") } }));
    expect(planGroupWrites(G, halfDone, rendered("x")).map((a) => [a.repo, a.step])).toEqual([
      ["acme/b", "add"],
    ]);
  });
});

describe("a group's slices in the state", () => {
  it("kept whole through the state's parse and its JSON; a state written before slices reads without them", () => {
    const withItems = groupItemChanged(group, "acme/threats#7", () => ({ i: 901, v: { Group: "1a" } }));
    const state = { ...emptyState(), groups: { [G]: withItems } };
    const read = State.parse(JSON.parse(JSON.stringify({ ...state, threats: {} })));
    const back = read.groups?.[G];
    expect(back?.slices).toEqual(withItems.slices);
    expect(decodeGroupSlice(sliceOf(back, "project"))).toEqual({
      "acme/threats#7": { i: 901, v: { Group: "1a" } },
    });
    // An old group record (no `slices`) parses, and has none.
    expect(GroupRecord.parse(group).slices).toBeUndefined();
  });

  it("withSlice on a group: set, replaced, and removed with the last slice (no empty `slices` left)", () => {
    const one = withSlice(group, "project", "x");
    expect(one.slices).toEqual({ project: "x" });
    expect(withSlice(withSlice(one, "other", "y"), "project", "z").slices).toEqual({
      project: "z",
      other: "y",
    });
    expect("slices" in withSlice(one, "project", undefined)).toBe(false);
  });

  it("a hand-edited slice that is not the project's reads as no items (the adds are planned again)", () => {
    expect(decodeGroupSlice("not json")).toEqual({});
    expect(decodeGroupSlice("[1]")).toEqual({});
    expect(decodeGroupSlice('{"acme/x#1":{"i":"no"},"acme/x#2":{"i":3,"v":{}}}')).toEqual({
      "acme/x#2": { i: 3, v: {} },
    });
    expect(encodeGroupSlice({})).toBeUndefined();
  });
});

// A field reads one kind of issue's scope: a threat's (threat, asset, sla, …) or a group's (group.*).
describe("project fields for group issues in the config", () => {
  const parse = (fields: Record<string, string>) =>
    ProjectConfig.safeParse({ owner: "acme", number: 7, fields }).success;
  it("a field may read the group (group.key, group.name, group.by), a threat, or nothing", () => {
    expect(parse({ Group: "{{ group.by }}: {{ group.key }} ({{ group.name }})" })).toBe(true);
    expect(parse({ Severity: "{{ threat.severity }}", Source: "threatbridge" })).toBe(true);
  });
  it("a field reading both a threat and the group, or what the group lacks, is a config error", () => {
    expect(parse({ Mixed: "{{ threat.severity }} {{ group.key }}" })).toBe(false);
    expect(parse({ Open: "{{ group.open }}" })).toBe(false);
  });
});
