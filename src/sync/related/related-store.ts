import type { Config } from "../../config/index.js";
import type { PlatformClient } from "../../platform/index.js";
import type { EngineEvent } from "../../shared/index.js";
import type { RelatedView } from "../render/index.js";
import type { RelatedSource } from "../render/renderer.js";
import { walkRelated } from "./related-walk.js";

/** Each asset's related assets, read at most once a cycle and kept until its version changes. */

interface RelatedStoreDeps {
  platform: Pick<PlatformClient, "relatedAssets">;
  limit: number;
  fields: Config["fields"]["asset"];
  /** The asset's version as the state holds it (null: never delivered), and whether it is removed. */
  assetVersion(assetId: string): { version: string; deleted: boolean } | null;
  emit(event: EngineEvent): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

interface Entry {
  version: string | null;
  /** null: the walk failed (in cycle `cycle`). */
  view: RelatedView | null;
  cycle: number;
}

/** Assets whose lists are held at once: 10,000 lists of up to 100 short entries stay a few MB. */
const MAX_ENTRIES = 10_000;
const NONE: RelatedView = Object.freeze({ assets: [], more: 0 });

export class RelatedAssets implements RelatedSource {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<RelatedView | null>>();
  private readonly warned = new Set<string>();
  private cycle = 0;

  constructor(private readonly deps: RelatedStoreDeps) {}

  /** A new cycle: a walk that failed in an earlier one may be tried again. */
  newCycle(): void {
    this.cycle += 1;
  }

  /** The list read under the asset's current version; null when none is at hand (or it failed). */
  peek(assetId: string): RelatedView | null {
    const entry = this.fresh(assetId);
    return entry?.view ?? null;
  }

  /** Reads the asset's related walk unless this version's list (or this cycle's failure) is at hand. */
  async load(assetId: string): Promise<RelatedView | null> {
    const entry = this.fresh(assetId);
    if (entry && (entry.view !== null || entry.cycle === this.cycle)) return entry.view;
    const running = this.inFlight.get(assetId);
    if (running) return running;
    const loading = this.read(assetId).finally(() => this.inFlight.delete(assetId));
    this.inFlight.set(assetId, loading);
    return loading;
  }

  private fresh(assetId: string): Entry | undefined {
    const entry = this.entries.get(assetId);
    const version = this.deps.assetVersion(assetId)?.version ?? null;
    return entry && entry.version === version ? entry : undefined;
  }

  private async read(assetId: string): Promise<RelatedView | null> {
    const known = this.deps.assetVersion(assetId);
    const version = known?.version ?? null;
    // A removed asset's threats have left the API: nothing to ask (spec, "Asset lifecycle").
    if (known?.deleted) return this.keep(assetId, version, NONE);
    const { platform, limit, fields } = this.deps;
    const walk = await walkRelated(platform.relatedAssets(assetId), assetId, limit, fields);
    this.deps.emit({ type: "related_assets_read", assetId, outcome: walk.outcome });
    if (walk.outcome !== "failed") return this.keep(assetId, version, walk.view);
    if (!this.warned.has(assetId) && this.warned.size < MAX_ENTRIES) {
      this.warned.add(assetId);
      this.deps.warn(
        {
          asset_id: assetId,
          err: walk.error instanceof Error ? walk.error.message.slice(0, 500) : "unknown error",
        },
        "related assets could not be read; its issues are written without the list until a later write",
      );
    }
    return this.keep(assetId, version, null);
  }

  private keep(assetId: string, version: string | null, view: RelatedView | null): RelatedView | null {
    this.entries.delete(assetId);
    this.entries.set(assetId, { version, view, cycle: this.cycle });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(oldest);
    }
    return view;
  }
}
