import { describe, expect, it } from "vitest";
import { Asset, SETTABLE_STATUSES, Threat, isKnownThreatStatus } from "../../src/platform/index.js";

const base = {
  id: "0B7C6F5E-1D2A-4C3B-9E8F-7A6B5C4D3E2F",
  status: "unsolved",
  updated_at: "2026-11-01T00:00:00Z",
};

describe("platform schemas (spec: Resources and their fields)", () => {
  it("versioning rule 2: unknown fields and unknown status values are kept, not rejected", () => {
    const t = Threat.parse({ ...base, status: "snoozed", severity: "high", extra: { a: 1 } });
    expect(t).toMatchObject({
      status: "snoozed",
      severity: "high",
      extra: { a: 1 },
      external_references: [],
    });
    expect(isKnownThreatStatus(t.status)).toBe(false);
    expect(isKnownThreatStatus("pending")).toBe(true);
  });

  it("stream_position is a string, a number or null (format not shown); module_data an object or null", () => {
    for (const stream_position of ["2026-01-01T00:00:00Z", 17, null]) {
      expect(Threat.safeParse({ ...base, stream_position, module_data: { version: "1" } }).success).toBe(
        true,
      );
    }
    expect(Threat.safeParse({ ...base, module_data: "lcm" }).success).toBe(false);
  });

  it("ids must be 8-4-4-4-12 hex of any version", () => {
    expect(Threat.safeParse({ ...base, id: "not-a-uuid" }).success).toBe(false);
    expect(Threat.safeParse({ ...base, id: "ffffffff-ffff-ffff-ffff-ffffffffffff" }).success).toBe(true);
  });

  it("external references parse, with linked_at set by the platform", () => {
    const ref = {
      system: "github",
      external_id: "acme/sec#1",
      url: "https://x",
      linked_at: "2026-01-01T00:00:00Z",
    };
    expect(Threat.parse({ ...base, external_references: [ref] }).external_references).toEqual([ref]);
    expect(Threat.safeParse({ ...base, external_references: [{ system: "github" }] }).success).toBe(false);
  });

  it("a reference of another system that is not as the table shows (no url, a null url, a numeric id) never costs the threat; an unreadable github one still does", () => {
    const github = { system: "github", external_id: "acme/sec#1", url: "https://x" };
    const others = [
      { system: "jira", external_id: "SEC-1" },
      { system: "jira-eu", external_id: "SEC-2", url: null },
      { system: "servicenow", external_id: 12345, url: "https://sn/1" },
      "not an object",
    ];
    const parsed = Threat.parse({ ...base, external_references: [...others, github] });
    expect(parsed.external_references.map((r) => r.system)).toEqual(["jira", "jira-eu", "github"]);
    // Whether `url` is required is "not shown" (PUT external-references): a github link without one
    // still names its issue.
    const noUrl = Threat.parse({
      ...base,
      external_references: [{ system: "github", external_id: "acme/sec#1" }],
    });
    expect(noUrl.external_references).toEqual([{ system: "github", external_id: "acme/sec#1" }]);
    expect(
      Threat.safeParse({ ...base, external_references: [{ system: "github", external_id: 7 }] }).success,
    ).toBe(false);
  });

  it("pending is a status but never settable", () => {
    expect(SETTABLE_STATUSES).toEqual(["unsolved", "solved", "false_positive", "accepted"]);
  });

  it("an asset tombstone keeps deleted and deleted_at; a missing deleted flag reads false", () => {
    const a = { id: base.id, updated_at: "t", stream_position: "p" };
    expect(Asset.parse({ ...a, deleted: true, deleted_at: "t2" })).toMatchObject({
      deleted: true,
      deleted_at: "t2",
    });
    expect(Asset.parse(a).deleted).toBe(false);
  });
});
