import { describe, expect, it } from "vitest";
import { emptyState, type ThreatRecord } from "../../src/sync/schema.js";
import { createStateContext, putThreat, updateThreat } from "../../src/sync/records/state-updates.js";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { REPO } from "./harness.js";

/**
 * The engine's writes of a threat's record read the stored record only where the caller has not
 * just read it (the walk of one threat counts its reads: docs/architecture.md, "One threat's walk"),
 * and the index follows every write either way.
 */

const ISSUE = {
  repo: REPO,
  number: 7,
  url: "https://github.test/acme/threats/issues/7",
  hash: "h",
  state: "open" as const,
};
const record = (extra: Partial<ThreatRecord> = {}): ThreatRecord => ({
  status: "unsolved",
  severity: 3,
  assetId: "asset-1",
  updatedAt: "u",
  ...extra,
});

/** A state context whose threat reads are counted. */
function counted() {
  const ctx = { ...createStateContext(emptyState(), { freeze: true }), index: new ThreatIndex() };
  // Asked once while empty: from then on the index follows each write.
  expect(ctx.index.byAsset.size).toBe(0);
  const threats = ctx.state.threats;
  const read = threats.get.bind(threats);
  const reads = { n: 0 };
  threats.get = (id: string) => {
    reads.n += 1;
    return read(id);
  };
  return { ctx, reads };
}

describe("putThreat: the record before the write, as the caller read it", () => {
  it("a new threat's record written with `before` given as none is not read again; the index holds it", () => {
    const { ctx, reads } = counted();
    putThreat(ctx, "t1", record(), undefined);
    expect(reads.n).toBe(0);
    expect(ctx.index.byAsset.get("asset-1")).toEqual(new Set(["t1"]));
  });

  it("without `before` the stored record is read once, and the index moves the threat from what it was", () => {
    const { ctx, reads } = counted();
    putThreat(ctx, "t1", record({ issue: ISSUE }), undefined);
    putThreat(ctx, "t1", record({ assetId: "asset-2", issue: ISSUE }));
    expect(reads.n).toBe(1);
    expect(ctx.index.byAsset.get("asset-1")?.has("t1") ?? false).toBe(false);
    expect(ctx.index.byAsset.get("asset-2")).toEqual(new Set(["t1"]));
    expect(ctx.index.repositories()).toEqual([REPO]);
  });

  it("updateThreat reads the record once and writes the change through, nothing when none is stored", () => {
    const { ctx, reads } = counted();
    updateThreat(ctx, "t1", (r) => ({ ...r, status: "solved" }));
    expect(reads.n).toBe(1);
    putThreat(ctx, "t1", record(), undefined);
    updateThreat(ctx, "t1", (r) => ({ ...r, status: "solved" }));
    expect(reads.n).toBe(2);
    expect(ctx.state.threats.get("t1")?.status).toBe("solved");
  });
});
