import type { Config } from "../../config/index.js";
import { PlatformStoppedError, type Asset, type StreamPage } from "../../platform/index.js";
import { isRecord } from "../../shared/json.js";
import { toAssetView } from "../render/normalize.js";
import type { AssetView, RelatedView } from "../render/index.js";

/**
 * One walk of `GET /v1/assets/{asset_id}/related` to its end, as the issue lists it: the first
 * `limit` distinct assets and how many more; never the asset itself or a removed one (rules 2, 3).
 */

type RelatedWalk = { outcome: "listed" | "none"; view: RelatedView } | { outcome: "failed"; error: unknown };

/** 404 `resource/not-found`: the asset is not in the organization (any more): it lists none (rule 5). */
function notFound(error: unknown): boolean {
  return isRecord(error) && error["status"] === 404 && error["type"] === "resource/not-found";
}

/** Takes in one page of the walk (`seen`: id → its view, null for a tombstone), in order. */
function absorbRelatedPage(
  seen: Map<string, AssetView | null>,
  assetId: string,
  page: StreamPage<Asset>,
  fields: Config["fields"]["asset"],
): void {
  for (const item of page.items) {
    if (!item.ok || item.value.id === assetId) continue;
    // A tombstone is never listed; a later live occurrence of the id would list it again.
    seen.set(item.value.id, item.value.deleted ? null : toAssetView(item.value, fields));
  }
}

/** The first `limit` live assets, and how many more there were. */
function relatedView(seen: ReadonlyMap<string, AssetView | null>, limit: number): RelatedView {
  const live = [...seen.values()].filter((asset): asset is AssetView => asset !== null);
  return { assets: live.slice(0, limit), more: Math.max(0, live.length - limit) };
}

/** Reads every page; a failure is an outcome, never thrown, but for a stop. */
export async function walkRelated(
  pages: AsyncIterable<StreamPage<Asset>>,
  assetId: string,
  limit: number,
  fields: Config["fields"]["asset"],
): Promise<RelatedWalk> {
  const seen = new Map<string, AssetView | null>();
  try {
    for await (const page of pages) absorbRelatedPage(seen, assetId, page, fields);
  } catch (error) {
    if (error instanceof PlatformStoppedError) throw error;
    if (!notFound(error)) return { outcome: "failed", error };
    return { outcome: "none", view: { assets: [], more: 0 } };
  }
  const view = relatedView(seen, limit);
  return { outcome: view.assets.length + view.more > 0 ? "listed" : "none", view };
}
