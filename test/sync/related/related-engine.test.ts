import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/observability/index.js";
import { ASSET, Harness, makeConfig, threatId } from "../harness.js";

/**
 * Contract, "The conversation back" → "Related assets", through the engine over in-memory fakes:
 * the related walk is read at most once per asset per cycle, only for assets whose issues are being
 * written, and kept until the asset changes on the stream; an asset without relations, or one the
 * platform answers 404 for, lists none; a failed walk degrades the body, never the write.
 */

const B = "00000000-0000-4000-8000-00000000b001";
const C = "00000000-0000-4000-8000-00000000c001";
const D = "00000000-0000-4000-8000-00000000d001";
const GONE = "00000000-0000-4000-8000-00000000e001";
const UNKNOWN = "00000000-0000-4000-8000-00000000f001";

function world(limit = 10): Harness {
  const h = new Harness(makeConfig({ render: { related_assets: limit }, filters: { min_severity: "low" } }));
  h.platform.putAsset(B, { name: "db.internal", type: "ip" });
  h.platform.putAsset(C, { name: "ops@example.com", type: "account" });
  h.platform.putAsset(D, { name: "lonely.example.com", type: "domain" });
  h.platform.putAsset(GONE, { name: "old.example.com", type: "domain" });
  h.platform.relate(ASSET, B);
  h.platform.relate(ASSET, C);
  h.platform.relate(ASSET, GONE);
  h.platform.putAsset(GONE, { deleted: true });
  return h;
}

function walks(h: Harness): number {
  return h.events.filter((e) => e.type === "related_assets_read").length;
}

describe("related assets: the engine", () => {
  it("a backfill walks each asset whose issues are written once, however many threats it has", async () => {
    const h = world();
    for (let n = 1; n <= 6; n += 1) h.platform.put({ id: threatId(n), asset_id: ASSET });
    for (let n = 7; n <= 9; n += 1) h.platform.put({ id: threatId(n), asset_id: D });
    // Below min_severity: no issue is written for it, so its asset is never walked.
    h.platform.put({ id: threatId(10), asset_id: B, severity: "informational" });
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.issues()).toHaveLength(9);
    expect([...h.platform.relatedWalks].sort()).toEqual([ASSET, D].sort());
    expect(walks(h)).toBe(2);
    const body = h.issueFor(threatId(1))[0]?.body ?? "";
    expect(body).toContain("### Related assets");
    expect(body).toContain(`- db.internal (ip), ${B}`);
    expect(body).toContain(`- ops@\u200Bexample.com (account), ${C}`);
    expect(h.issueFor(threatId(7))[0]?.body).toContain("_No related assets._");
  });

  it("removed assets are never listed (spec, related assets rule 3)", async () => {
    const h = world();
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    await h.settle();
    const body = h.issueFor(threatId(1))[0]?.body ?? "";
    expect(body).not.toContain(GONE);
    expect(body).not.toContain("old.example.com");
  });

  it("an idle cycle walks nothing; neither does the echo of the connector's own writes", async () => {
    const h = world();
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    await h.settle();
    const before = h.platform.relatedWalks.length;
    await h.cycle();
    await h.cycle();
    expect(h.platform.relatedWalks.length).toBe(before);
  });

  it("a content update reuses the list until the asset changes on the stream; then one walk per asset", async () => {
    const h = world();
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    h.platform.put({ id: threatId(2), asset_id: ASSET });
    await h.settle();
    expect(h.platform.relatedWalks).toEqual([ASSET]);
    // The threat's own change rewrites its body: the list at hand is used, no second walk.
    h.platform.put({ id: threatId(1), name: "Renamed threat" });
    await h.settle();
    expect(h.issueFor(threatId(1))[0]?.title).toContain("Renamed threat");
    expect(h.platform.relatedWalks).toEqual([ASSET]);
    // The neighbourhood changes and the asset changes on the stream: the list at hand is stale, and
    // the next body written for one of its threats reads it again (once, for both threats).
    h.platform.relate(ASSET, D);
    h.platform.putAsset(ASSET, { name: "shop.example.com", business_value: "high" });
    await h.settle();
    expect(h.platform.relatedWalks).toEqual([ASSET]);
    h.platform.put({ id: threatId(1), name: "Renamed again" });
    h.platform.put({ id: threatId(2), name: "Renamed too" });
    await h.settle();
    expect(h.platform.relatedWalks).toEqual([ASSET, ASSET]);
    for (const n of [1, 2])
      expect(h.issueFor(threatId(n))[0]?.body).toContain(`lonely.example.com (domain), ${D}`);
  });

  it("a neighbourhood that changed while the asset did not rewrites no issue", async () => {
    const h = world();
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    await h.settle();
    const writes = h.github.writes;
    h.platform.relate(ASSET, D);
    await h.settle();
    expect(h.github.writes).toBe(writes);
    expect(h.platform.relatedWalks).toEqual([ASSET]);
  });

  it("an asset the platform answers 404 for lists none (spec, related assets rule 5)", async () => {
    const h = world();
    h.platform.put({ id: threatId(1), asset_id: UNKNOWN });
    await h.settle();
    expect(h.platform.relatedWalks).toEqual([UNKNOWN]);
    expect(h.issueFor(threatId(1))[0]?.body).toContain("_No related assets._");
    expect(h.events).toContainEqual({ type: "related_assets_read", assetId: UNKNOWN, outcome: "none" });
  });

  it('more related assets than N: the first N are listed, then "and N more"', async () => {
    const h = world(1);
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    await h.settle();
    const body = h.issueFor(threatId(1))[0]?.body ?? "";
    expect(body.match(/^- /gm)).toHaveLength(1);
    expect(body).toContain("and 1 more");
  });

  it("a walk that fails degrades the body, not the write: logged once, not read again in the cycle", async () => {
    const h = world();
    const lines: Array<Record<string, unknown>> = [];
    h.ctx.logger = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const text of chunk.toString().split("\n").filter(Boolean)) {
            const line: unknown = JSON.parse(text);
            if (typeof line === "object" && line !== null) lines.push({ ...line });
          }
          done();
        },
      }),
    });
    h.platform.relatedFails.add(ASSET);
    h.platform.put({ id: threatId(1), asset_id: ASSET });
    h.platform.put({ id: threatId(2), asset_id: ASSET });
    const report = await h.cycle();
    expect(report.ok).toBe(true);
    expect(h.issues()).toHaveLength(2);
    for (const n of [1, 2]) expect(h.issueFor(threatId(n))[0]?.body).not.toContain("### Related assets");
    expect(h.platform.relatedWalks).toEqual([ASSET]);
    expect(h.events).toContainEqual({ type: "related_assets_read", assetId: ASSET, outcome: "failed" });
    const warned = lines.filter((l) => l["asset_id"] === ASSET);
    expect(warned).toHaveLength(1);
    expect(warned[0]?.["level"]).toBe("warn");
    // A later write of one of its issues tries again, and lists them.
    h.platform.relatedFails.delete(ASSET);
    h.platform.put({ id: threatId(3), asset_id: ASSET });
    await h.settle();
    expect(h.platform.relatedWalks).toEqual([ASSET, ASSET]);
    expect(h.issueFor(threatId(3))[0]?.body).toContain(`db.internal (ip), ${B}`);
    expect(lines.filter((l) => l["asset_id"] === ASSET)).toHaveLength(1);
  });

  it("off (absent, or 0): no walk, and the body has no section", async () => {
    for (const config of [makeConfig(), makeConfig({ render: { related_assets: 0 } })]) {
      const h = new Harness(config);
      h.platform.put({ id: threatId(1), asset_id: ASSET });
      await h.settle();
      expect(h.platform.relatedWalks).toEqual([]);
      expect(h.issueFor(threatId(1))[0]?.body).not.toContain("Related assets");
    }
  });
});
