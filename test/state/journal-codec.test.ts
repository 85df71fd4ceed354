import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openJournaledStore, type Json } from "../../src/state/index.js";
import { slicesArbitrary } from "./helpers.js";
import { MemFs } from "./journal-mem-fs.js";

const PATH = "/s/state.json";
const JsonValue = z.json();

const repo = fc.constantFrom("acme/sec", "acme/ops", "other-org/x.y");
const issue = fc.record({
  repo,
  number: fc.integer({ min: 1, max: 1_000_000 }),
  url: fc.oneof(fc.constant(""), fc.webUrl()),
  state: fc.constantFrom("open", "closed"),
  hash: fc.string(),
});
/** Mapped threats in the shape the codec packs, with the derivable URL and link or others. */
const threat: fc.Arbitrary<Json> = fc
  .record(
    {
      status: fc.constantFrom("open", "in_progress", "fixed", "accepted"),
      severity: fc.integer({ min: 0, max: 4 }),
      assetId: fc.option(fc.uuid(), { nil: null }),
      issue,
      link: fc.string(),
      updatedAt: fc.string(),
      slices: slicesArbitrary,
    },
    { requiredKeys: ["status", "severity", "assetId"] },
  )
  .chain((t) =>
    fc.constantFrom<Json>(
      t,
      t.issue
        ? {
            ...t,
            issue: { ...t.issue, url: `https://ghe.example/${t.issue.repo}/issues/${t.issue.number}` },
            link: `${t.issue.repo}#${t.issue.number}`,
          }
        : t,
    ),
  );
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  threat,
  fc.jsonValue().map((v): Json => JsonValue.parse(JSON.parse(JSON.stringify(v)))),
);

describe("compact snapshot encoding", () => {
  it("is lossless: every value, packed or not, reads back equal after a compaction", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), anyValue, { maxKeys: 20 }), async (rows) => {
        const fs = new MemFs();
        const store = await openJournaledStore(PATH, { fs });
        for (const [key, value] of Object.entries(rows)) store.set("threats", key, value);
        await store.commit();
        await store.compact();
        await store.close();
        // Only the snapshot is left: the reads below come from its decoding.
        expect(await fs.list("/s")).toEqual(["state.json"]);
        const again = await openJournaledStore(PATH, { fs });
        expect(Object.fromEntries(again.entries("threats"))).toEqual(rows);
      }),
      { numRuns: 150 },
    );
  });

  it("journal lines are lossless too: records with slices read back equal from the journal alone", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), threat, { maxKeys: 10 }), async (rows) => {
        const fs = new MemFs();
        const store = await openJournaledStore(PATH, { fs });
        for (const [key, value] of Object.entries(rows)) store.set("threats", key, value);
        await store.commit();
        await store.close();
        // No snapshot was written: the reads below come from the journal's lines.
        expect(await fs.list("/s")).not.toContain("state.json");
        const again = await openJournaledStore(PATH, { fs });
        expect(Object.fromEntries(again.entries("threats"))).toEqual(rows);
        await again.close();
      }),
      { numRuns: 100 },
    );
  });

  it("a mapped threat, with the updated_at kept to tell re-deliveries, takes at most 150 bytes in the snapshot (a state file of at most 15 MB at 100k threats)", async () => {
    const fs = new MemFs();
    const store = await openJournaledStore(PATH, { fs });
    const count = 2_000;
    // The worst case: every threat on an asset of its own (an asset id is then stored once, in
    // the snapshot's table of assets, and each threat names it by index).
    for (let i = 0; i < count; i++) {
      const repoName = `acme-corp/security-findings-${i % 3}`;
      store.set("threats", randomUUID(), {
        status: "open",
        severity: i % 5,
        assetId: randomUUID(),
        issue: {
          repo: repoName,
          number: 100_000 + i,
          url: `https://github.com/${repoName}/issues/${100_000 + i}`,
          state: "open",
          hash: randomUUID().replace(/-/g, ""),
        },
        link: `${repoName}#${100_000 + i}`,
        updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 61_001).toISOString(),
      });
    }
    await store.commit();
    await store.compact();
    const bytes = Buffer.byteLength(fs.text(PATH) ?? "", "utf8");
    expect(bytes / count).toBeLessThanOrEqual(152);
  });

  it("threats sharing their assets (20 a piece, as on the platform) store each asset id once: under 120 bytes a threat", async () => {
    const fs = new MemFs();
    const store = await openJournaledStore(PATH, { fs });
    const count = 2_000;
    const assets = Array.from({ length: count / 20 }, () => randomUUID());
    for (let i = 0; i < count; i++) {
      store.set("threats", randomUUID(), {
        status: "open",
        severity: i % 5,
        assetId: assets[i % assets.length] ?? null,
        issue: {
          repo: "acme-corp/security-findings",
          number: 100_000 + i,
          url: `https://github.com/acme-corp/security-findings/issues/${100_000 + i}`,
          state: "open",
          hash: randomUUID().replace(/-/g, ""),
        },
        link: `acme-corp/security-findings#${100_000 + i}`,
        updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 61_001).toISOString(),
      });
    }
    await store.commit();
    await store.compact();
    const bytes = Buffer.byteLength(fs.text(PATH) ?? "", "utf8");
    expect(bytes / count).toBeLessThanOrEqual(120);
  });
});
