import { describe, expect, it } from "vitest";
import type { AssetRecord, ThreatRecord } from "../../../src/sync/schema.js";
import {
  applyAssetVersion,
  applyThreatVersion,
  threatOnAssetRemoved,
  threatOnAssetRestored,
  type ThreatVersion,
} from "../../../src/sync/transitions/threat-version.js";

const ISSUE = {
  repo: "acme/sec",
  number: 3,
  url: "https://github.test/acme/sec/issues/3",
  state: "open" as const,
  hash: "h",
};
const version: ThreatVersion = {
  status: "unsolved",
  updatedAt: "u1",
  severityRank: 3,
  assetId: "a1",
  link: null,
};
const mapped: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: "a1",
  updatedAt: "u1",
  issue: ISSUE,
  link: "acme/sec#3",
};

describe("threat version transition (a stream item → the new record)", () => {
  it("spec Events: the same updated_at (later stream_position) is a re-delivery: no change", () => {
    expect(applyThreatVersion(mapped, version)).toEqual({ kind: "redelivery" });
  });

  it("a new version replaces the platform's fields and keeps what the connector wrote (issue, link)", () => {
    const result = applyThreatVersion(mapped, {
      ...version,
      status: "solved",
      updatedAt: "u2",
      severityRank: null,
    });
    expect(result).toEqual({
      kind: "changed",
      record: { ...mapped, status: "solved", updatedAt: "u2", severity: 0 },
    });
  });

  it("a threat never seen becomes a record; the platform's `github` link is taken from the version", () => {
    expect(applyThreatVersion(undefined, { ...version, link: "acme/sec#9" })).toEqual({
      kind: "changed",
      record: { status: "unsolved", severity: 3, assetId: "a1", updatedAt: "u1", link: "acme/sec#9" },
    });
  });

  it("a gone threat back on the stream at the same version is a change: it is no longer gone", () => {
    const result = applyThreatVersion({ ...mapped, gone: true }, version);
    expect(result).toEqual({ kind: "changed", record: mapped });
  });
});

describe("asset version transition (spec, Asset lifecycle)", () => {
  const known: AssetRecord = { name: "db", type: "domain", deleted: false, updatedAt: "u1" };

  it("a tombstone for an asset never seen, with no threats, is ignored", () => {
    expect(
      applyAssetVersion(undefined, { deleted: true, updatedAt: "u2", name: null, type: null }, () => false),
    ).toEqual({
      kind: "ignored",
    });
  });

  it("a removal keeps the asset's name and says its threats are removed; a second tombstone changes nothing more", () => {
    const removed = applyAssetVersion(
      known,
      { deleted: true, updatedAt: "u2", name: null, type: null },
      () => true,
    );
    expect(removed).toEqual({
      kind: "recorded",
      asset: { name: "db", type: "domain", deleted: true, updatedAt: "u2" },
      change: "removed",
    });
    const again = applyAssetVersion(
      { ...known, deleted: true },
      { deleted: true, updatedAt: "u3", name: null, type: null },
      () => true,
    );
    expect(again).toMatchObject({ kind: "recorded", change: null });
    expect(
      applyAssetVersion(
        { ...known, deleted: true, updatedAt: "u3" },
        { deleted: true, updatedAt: "u3", name: null, type: null },
        () => true,
      ),
    ).toEqual({ kind: "ignored" });
  });

  it("the same version of a live asset again is a re-delivery: nothing recorded (spec, Events)", () => {
    expect(
      applyAssetVersion(known, { deleted: false, updatedAt: "u1", name: "db", type: "domain" }, () => true),
    ).toEqual({
      kind: "ignored",
    });
    expect(
      applyAssetVersion(known, { deleted: false, updatedAt: "u2", name: "db", type: "domain" }, () => true),
    ).toMatchObject({ kind: "recorded", change: null });
  });

  it("a live version of a removed asset is a restore", () => {
    const restored = applyAssetVersion(
      { ...known, deleted: true },
      { deleted: false, updatedAt: "u3", name: "db2", type: "ip" },
      () => true,
    );
    expect(restored).toEqual({
      kind: "recorded",
      asset: { name: "db2", type: "ip", deleted: false, updatedAt: "u3" },
      change: "restored",
    });
  });

  it("removal: the threat is gone, and work is due only when it has an issue to close; restore: back, always due", () => {
    expect(threatOnAssetRemoved(mapped)).toEqual({ record: { ...mapped, gone: true }, due: true });
    const { issue: _none, ...unmapped } = mapped;
    expect(threatOnAssetRemoved(unmapped).due).toBe(false);
    expect(threatOnAssetRestored({ ...mapped, gone: true })).toEqual({ record: mapped, due: true });
  });
});
