import { describe, expect, it } from "vitest";
import { ThreatCache, type CachedThreat } from "../../src/sync/records/threat-cache.js";

function threat(id: string, descriptionChars: number): CachedThreat {
  return {
    view: {
      id,
      title: `threat ${id}`,
      description: "x".repeat(descriptionChars),
      severity: "high",
      severityRank: 3,
      module: null,
      status: "unsolved",
      ageDays: 1,
      assetId: null,
      moduleData: null,
      updatedAt: "2026-01-01T00:00:00Z",
    },
    link: null,
  };
}

describe("the run's cache of threats read (bounded by bytes, not count)", () => {
  it("holds far fewer long threats than short ones, and never more bytes than its bound", () => {
    const maxBytes = 2 * 1024 * 1024;
    const long = new ThreatCache(maxBytes, 5000);
    const short = new ThreatCache(maxBytes, 5000);
    for (let i = 0; i < 1500; i++) {
      long.set(`t${i}`, threat(`t${i}`, 100_000));
      short.set(`t${i}`, threat(`t${i}`, 100));
      expect(long.heldBytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(long.size).toBeLessThan(20);
    expect(short.size).toBe(1500);
    // The newest entries stay: the writer is about to use them.
    expect(long.has("t1499")).toBe(true);
    expect(long.has("t0")).toBe(false);
  });

  it("keeps its byte count exact through replace, delete and clear", () => {
    const cache = new ThreatCache(1024 * 1024, 10);
    cache.set("a", threat("a", 1000));
    const one = cache.heldBytes;
    cache.set("a", threat("a", 1000));
    expect(cache.heldBytes).toBe(one);
    cache.set("b", threat("b", 1000));
    cache.delete("a");
    expect(cache.heldBytes).toBe(one);
    cache.clear();
    expect(cache.heldBytes).toBe(0);
  });

  it("a single threat larger than the bound is still kept for the writer that needs it", () => {
    const cache = new ThreatCache(10_000, 10);
    cache.set("big", threat("big", 50_000));
    expect(cache.has("big")).toBe(true);
    cache.set("next", threat("next", 10));
    expect(cache.has("big")).toBe(false);
    expect(cache.has("next")).toBe(true);
  });

  it("past the count bound the oldest entries go first, one for each added; within both bounds none goes", () => {
    const cache = new ThreatCache(1024 * 1024, 3);
    for (const id of ["a", "b", "c"]) cache.set(id, threat(id, 10));
    expect([...cache.keys()]).toEqual(["a", "b", "c"]);
    cache.set("d", threat("d", 10));
    expect([...cache.keys()]).toEqual(["b", "c", "d"]);
    // A replaced entry is the newest: the oldest other one goes when the next is added.
    cache.set("b", threat("b", 10));
    cache.set("e", threat("e", 10));
    expect([...cache.keys()]).toEqual(["d", "b", "e"]);
  });

  it("a dry run keeps everything it read", () => {
    const cache = new ThreatCache(10_000, 2, true);
    for (let i = 0; i < 5; i++) cache.set(`t${i}`, threat(`t${i}`, 10_000));
    expect(cache.size).toBe(5);
  });
});
