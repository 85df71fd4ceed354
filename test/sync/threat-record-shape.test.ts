import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateStore, ThreatRecord } from "../../src/state/index.js";
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
  acceptanceSought: "2026-01-02T03:04:05.000Z",
  acceptance: {
    until: "2026-04-01T23:59:59.999Z",
    since: "2026-01-02T00:00:00.000Z",
    by: "alice",
    step: "announced",
  },
  occurrence: 2,
  recurredFrom: { repo: "acme/sec", number: 5, noted: true },
  sla: {
    since: "2026-01-01T00:00:00.000Z",
    due: "2026-01-31T00:00:00.000Z",
    breach: "added",
    milestone: "SLA 2026-02-01",
  },
  slices: { notes: '{"h":"ab"}', project: "item=9" },
} satisfies ThreatRecord;

describe("the threat record's shape is the state schema's (src/state/schema.ts)", () => {
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

  it("an SLA as the connector writes it passes the plain checks (no schema parse per row); another form goes through the schema", () => {
    const { status, severity, assetId, updatedAt, issue, link, sla } = FULL;
    const row = { status, severity, assetId, updatedAt, issue, link, sla };
    // The same object back: the guard accepted it without the schema (which would copy it).
    expect(toThreatRecord(row)).toBe(row);
    const otherForm = { ...row, sla: { since: "2026-01-01T00:00:00Z", due: "2026-01-31T00:00:00Z" } };
    expect(toThreatRecord(otherForm)).not.toBe(otherForm);
    expect(toThreatRecord(otherForm).sla).toEqual(otherForm.sla);
    expect(() => toThreatRecord({ ...row, sla: { ...sla, due: "next week" } })).toThrow();
    expect(() => toThreatRecord({ ...row, sla: { ...sla, breach: "maybe" } })).toThrow();
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

describe("the stored-row guard's fast path for a risk acceptance (1 % of the threats)", () => {
  const base = { status: "accepted", severity: 3, assetId: null, updatedAt: "u" };
  const acceptance = { until: "2026-04-01T23:59:59.999Z", since: "s", by: "alice", step: "warned" };
  it("takes an acceptance as the connector writes it as it is, and sends any other shape to the schema", () => {
    const record = { ...base, acceptance };
    expect(toThreatRecord(record)).toBe(record);
    // An unknown key: the schema's parse drops it (what the fast path must never keep).
    expect(toThreatRecord({ ...base, acceptance: { ...acceptance, extra: 1 } }).acceptance).toEqual(
      acceptance,
    );
    expect(() => toThreatRecord({ ...base, acceptance: { ...acceptance, step: "later" } })).toThrow();
  });
});
