import { describe, expect, it } from "vitest";
import type { Json } from "../../src/state/index.js";
import type { ThreatRecord } from "../../src/sync/schema.js";
import { ThreatRecordsView, type ThreatRows } from "../../src/sync/records/threat-records.js";

const record: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: "a1",
  updatedAt: "2026-11-23T07:00:00.000Z",
  issue: {
    repo: "acme/sec",
    number: 7,
    url: "https://github.com/acme/sec/issues/7",
    state: "open",
    hash: "h",
  },
};

/** Rows over a map, as a plain state keeps them. */
function rows(values: Record<string, Json> = {}): ThreatRows {
  const map = new Map<string, Json>(Object.entries(values));
  return {
    get: (key) => map.get(key),
    set: (key, value) => map.set(key, value),
    delete: (key) => map.delete(key),
    entries: () => map.entries(),
    keys: () => map.keys(),
    get size() {
      return map.size;
    },
  };
}

describe("the engine's threat records (read once per step: what the engine stored is not checked again)", () => {
  it("a record the engine stores is read back as the JSON it stored, the same value at every read", () => {
    const threats = new ThreatRecordsView(rows());
    threats.set("t1", { ...record, link: undefined });
    const first = threats.get("t1");
    expect(first).toEqual(record);
    expect(first && "link" in first).toBe(false); // a member left undefined is not stored
    expect(threats.get("t1")).toBe(first);
    // One of a rarer shape (a refused step), which a row read from elsewhere has the schema parse.
    const refused = { ...record, refused: { action: "update", reason: "locked", at: record.updatedAt } };
    threats.set("t2", refused);
    expect(threats.get("t2")).toEqual(refused);
    expect(threats.get("t2")).toBe(threats.get("t2"));
  });

  it("with the state guard on, the stored record is read back deep-frozen", () => {
    const threats = new ThreatRecordsView(rows(), true);
    threats.set("t1", record);
    const read = threats.get("t1");
    expect(Object.isFrozen(read)).toBe(true);
    expect(Object.isFrozen(read?.issue)).toBe(true);
  });

  it("a row the engine did not write is checked when read: one the schema refuses throws", () => {
    const threats = new ThreatRecordsView(rows({ t1: { status: 3, severity: "high" } }));
    expect(() => threats.get("t1")).toThrow();
    const fine = new ThreatRecordsView(rows({ t2: record as unknown as Json }));
    expect(fine.get("t2")).toEqual(record);
  });
});
