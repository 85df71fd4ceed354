import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { ThreatRecord } from "../../src/sync/schema.js";
import { THREAT_RECORD_FIELDS, toThreatRecord } from "../../src/sync/records/threat-record-guard.js";

// One record with every field of the schema set, so a field the schema gains shows up below.
const FULL = {
  status: "unsolved",
  severity: 3,
  assetId: "asset-1",
  updatedAt: "2026-01-02T03:04:05.000Z",
  gone: false,
  issue: {
    repo: "acme/sec",
    number: 7,
    url: "https://github.com/acme/sec/issues/7",
    state: "open",
    hash: "ab12",
  },
  link: "acme/sec#7",
  refused: { action: "update", reason: "locked", at: "2026-01-03T00:00:00.000Z" },
  deletedIssue: { repo: "acme/sec", number: 6, at: "2026-01-01T00:00:00.000Z" },
  closedForRemoval: true,
  // The features' data: each its feature's slice (stored in feature_data), none a field of the record.
  slices: {
    notes: '{"h":"ab"}',
    project: "item=9",
    sla: '{"since":"2026-01-01T00:00:00.000Z","due":"2026-01-31T00:00:00.000Z","breach":"added"}',
    acceptance: '{"held":{"until":"2026-04-01T23:59:59.999Z","since":"s","by":"alice","step":"announced"}}',
    recurrence: '{"occurrence":2,"from":{"repo":"acme/sec","number":5,"noted":true}}',
  },
} satisfies ThreatRecord;

describe("the threat record's shape is the state schema's (src/sync/schema.ts)", () => {
  it("the stored-row guard names exactly the schema's fields", () => {
    expect([...THREAT_RECORD_FIELDS].sort()).toEqual(Object.keys(ThreatRecord.shape).sort());
    expect(Object.keys(FULL).sort()).toEqual(Object.keys(ThreatRecord.shape).sort());
  });

  it("a stored row whose field has the wrong type is refused, for every field (the guard checks each one)", () => {
    expect(toThreatRecord(structuredClone(FULL))).toEqual(FULL);
    for (const field of THREAT_RECORD_FIELDS) {
      const row: Record<string, unknown> = { ...structuredClone(FULL), [field]: { wrong: [1] } };
      expect(() => toThreatRecord(row), field).toThrow();
    }
  });

  it("a core record has no feature field: the SLA's, the risk acceptance's and the recurrence's data are their slices", () => {
    for (const field of ["sla", "acceptance", "acceptanceSought", "occurrence", "recurredFrom", "recurrence"])
      expect(Object.keys(ThreatRecord.shape), field).not.toContain(field);
    // A row with a feature's field beside the schema's is no record: the schema refuses the key's
    // value, and the fast path never takes a key it does not know.
    const { status, severity, assetId, updatedAt } = FULL;
    const legacy = { status, severity, assetId, updatedAt, sla: { since: "x", due: "y" } };
    expect(toThreatRecord(legacy)).not.toHaveProperty("sla");
    // A record with slices is taken as it is (no schema parse per row).
    const row = { status, severity, assetId, updatedAt, slices: FULL.slices };
    expect(toThreatRecord(row)).toBe(row);
  });

  it("the database keeps every field of a record through a commit and a reopen", async () => {
    const dir = await mkdtemp(join(tmpdir(), "threatbridge-shape-"));
    try {
      const path = join(dir, "state.json");
      const store = await openStateStore(path);
      const { status, severity, assetId, updatedAt, issue, link } = FULL;
      const plain = { status, severity, assetId, updatedAt, issue, link } satisfies ThreatRecord;
      store.set("threats", "t-full", FULL);
      store.set("threats", "t-plain", plain);
      await store.commit();
      await store.close();
      const back = await openStateStore(path, { readOnly: true });
      expect(back.get("threats", "t-full")).toEqual(FULL);
      expect(back.get("threats", "t-plain")).toEqual(plain);
      await back.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
