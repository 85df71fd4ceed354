import type { AssetRecord, ThreatRecord } from "../schema.js";
import type { KeptValue } from "../../shared/kept-values.js";

/**
 * An asset as the engine keeps it: the store's record, and the values at the routes' `where`
 * paths into its JSON (`asset.…`, by full path; those present only), so that a route matches
 * without a read. Kept in the same `assets` record (records/stored-state.ts reads them back).
 */
export type EngineAsset = AssetRecord & { routeValues?: Readonly<Record<string, KeptValue>> };

/** Pure transitions of the platform's streams: the record(s) a stream item leaves; applied by intake. */

/** What a threat version contributes to its record (the fields the state keeps). */
export interface ThreatVersion {
  status: string;
  updatedAt: string;
  /** Severity rank 0..4, null when the platform's value is not in the vocabulary. */
  severityRank: number | null;
  assetId: string | null;
  /** external_id of the platform's `github` reference, null when it shows none. */
  link: string | null;
}

type ThreatVersionResult =
  /** The version already processed: nothing changes and nothing becomes due (spec, "Events"). */
  { kind: "redelivery" } | { kind: "changed"; record: ThreatRecord };

/** Same `updated_at` and status is a re-delivery, not a change (spec, "Events"), unless the threat was gone. */
function isRedelivery(before: ThreatRecord | undefined, version: ThreatVersion): boolean {
  return (
    before !== undefined &&
    !before.gone &&
    before.updatedAt === version.updatedAt &&
    before.status === version.status
  );
}

export function applyThreatVersion(
  before: ThreatRecord | undefined,
  version: ThreatVersion,
): ThreatVersionResult {
  if (isRedelivery(before, version)) return { kind: "redelivery" };
  // Back on the stream: no longer gone; what the connector wrote (issue, link, refusals) stays.
  const { gone: _back, ...kept } = before ?? {};
  return {
    kind: "changed",
    record: {
      ...kept,
      status: version.status,
      severity: version.severityRank ?? 0,
      assetId: version.assetId,
      updatedAt: version.updatedAt,
      ...(version.link !== null ? { link: version.link } : {}),
    },
  };
}

/** An asset as the stream shows it (the mapped fields the state keeps). */
interface AssetVersion {
  deleted: boolean;
  updatedAt: string;
  name: string | null;
  type: string | null;
  routeValues?: Readonly<Record<string, KeptValue>> | undefined;
}

/** Whether two sets of kept values are the same (both absent included). */
function sameValues(a: EngineAsset["routeValues"], b: EngineAsset["routeValues"]): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

type AssetVersionResult =
  /** A tombstone for an asset never seen: ignored (spec, "Asset lifecycle"). */
  { kind: "ignored" } | { kind: "recorded"; asset: EngineAsset; change: "removed" | "restored" | null };

/** `hasThreats`: whether the state maps threats to this asset; `change` says what happens to them. */
export function applyAssetVersion(
  known: EngineAsset | undefined,
  asset: AssetVersion,
  hasThreats: () => boolean,
): AssetVersionResult {
  if (asset.deleted) {
    // An asset created and removed between two polls arrives as a tombstone for an id never seen.
    if (!known && !hasThreats()) return { kind: "ignored" };
    // The same tombstone again (a re-delivery): nothing to record.
    if (known?.deleted && known.updatedAt === asset.updatedAt) return { kind: "ignored" };
    return {
      kind: "recorded",
      asset: {
        name: known?.name ?? null,
        type: known?.type ?? null,
        deleted: true,
        updatedAt: asset.updatedAt,
        ...(known?.routeValues ? { routeValues: known.routeValues } : {}),
      },
      change: known?.deleted ? null : "removed",
    };
  }
  // The same version again (a re-delivery, spec "Events"): nothing to record.
  if (
    known &&
    !known.deleted &&
    known.updatedAt === asset.updatedAt &&
    known.name === asset.name &&
    known.type === asset.type &&
    // The routes' paths changed (the stream read again): the same version keeps other values.
    sameValues(known.routeValues, asset.routeValues)
  )
    return { kind: "ignored" };
  return {
    kind: "recorded",
    asset: {
      name: asset.name,
      type: asset.type,
      deleted: false,
      updatedAt: asset.updatedAt,
      ...(asset.routeValues ? { routeValues: asset.routeValues } : {}),
    },
    change: known?.deleted ? "restored" : null,
  };
}

/** A threat whose asset was removed left the API: work is due only when it has an issue to close. */
export function threatOnAssetRemoved(record: ThreatRecord): { record: ThreatRecord; due: boolean } {
  return { record: { ...record, gone: true }, due: record.issue !== undefined };
}

/** Its asset restored, the threat is back: it is read again (GET) to reopen its issue if unsolved. */
export function threatOnAssetRestored(record: ThreatRecord): { record: ThreatRecord; due: boolean } {
  const { gone: _back, ...rest } = record;
  return { record: rest, due: true };
}
