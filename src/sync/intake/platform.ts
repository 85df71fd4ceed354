import {
  isPlatformPause,
  type Asset,
  type ParsedItem,
  type StreamPage,
  type Threat,
} from "../../platform/index.js";
import { pluggedFor, threatVersionSeen } from "../features/registry.js";
import { nowIso, persist, type SyncContext } from "../context.js";
import {
  dropPending,
  forgetIfIdle,
  putAsset,
  putRetry,
  putThreat,
  setMeta,
} from "../records/state-updates.js";
import { githubLink, toAssetView, toThreatView } from "../render/normalize.js";
import { pickValues } from "../../shared/kept-values.js";
import { planFor } from "../plan/plan-for.js";
import { noteGroupMember } from "../groups/membership.js";
import { enqueue } from "../records/queue.js";
import { isCursorRefusal, noteCursorRefused, streamStopped } from "./stream-stops.js";
import {
  applyAssetVersion,
  applyThreatVersion,
  threatOnAssetRemoved,
  threatOnAssetRestored,
} from "../transitions/threat-version.js";

/**
 * Intake from the platform: both streams from the saved cursors to `next_cursor: null`; a cursor is
 * saved only with the work it made due (one commit), so a crash never skips unrecorded work.
 */

/** Pages between checkpoints of a long walk (a backfill). */
const CHECKPOINT_PAGES = 50;

function noteMalformed(
  ctx: SyncContext,
  kind: "threats" | "assets",
  item: Extract<ParsedItem<unknown>, { ok: false }>,
): void {
  ctx.emit({ type: "item_malformed", stream: kind, id: item.id });
  if (item.id === null) {
    // Without an id the item cannot be read again by itself: it is logged for the operator.
    ctx.logger.error({ kind, err: item.error }, "malformed item without an id skipped");
    return;
  }
  const previous = ctx.state.retry[kind][item.id];
  putRetry(ctx, kind, item.id, {
    attempts: (previous?.attempts ?? 0) + 1,
    lastError: item.error.slice(0, 500),
    since: previous?.since ?? nowIso(ctx),
  });
  ctx.logger.warn(
    { kind, [kind === "threats" ? "threat_id" : "asset_id"]: item.id, err: item.error },
    "malformed item; it is read again next cycle",
  );
}

export function absorbAsset(ctx: SyncContext, asset: Asset): void {
  putRetry(ctx, "assets", asset.id, undefined);
  const view = asset.deleted ? null : toAssetView(asset, ctx.config.fields.asset);
  const result = applyAssetVersion(
    ctx.state.assets[asset.id],
    {
      deleted: asset.deleted,
      updatedAt: asset.updated_at,
      name: view?.name ?? null,
      type: view?.type ?? null,
      // What the routes' `where` reads of the asset (`asset.…`): kept, so matching needs no read.
      routeValues:
        asset.deleted || ctx.policy.wherePaths.asset.length === 0
          ? undefined
          : pickValues(asset, "asset", ctx.policy.wherePaths.asset),
    },
    // Asked only of a tombstone for an unknown asset: a re-delivered asset costs no lookup.
    () => Boolean(ctx.index.byAsset.get(asset.id)?.size),
  );
  if (result.kind === "ignored") return;
  putAsset(ctx, asset.id, result.asset);
  if (result.change === null) return;
  // Removed: its threats' issues are closed. Restored: each is read again (spec, "Asset lifecycle").
  ctx.emit({ type: result.change === "removed" ? "asset_removed" : "asset_restored", assetId: asset.id });
  const follow = result.change === "removed" ? threatOnAssetRemoved : threatOnAssetRestored;
  for (const threatId of [...(ctx.index.byAsset.get(asset.id) ?? [])]) {
    const record = ctx.state.threats.get(threatId);
    if (!record) continue;
    const after = follow(record);
    putThreat(ctx, threatId, after.record, record);
    ctx.cache.delete(threatId);
    if (after.due) enqueue(ctx, threatId, {}, nowIso(ctx));
  }
}

/** The id of a raw item that is a version the state holds (a re-delivery, spec "Events"): not parsed. */
function unchangedThreat(ctx: SyncContext, raw: Readonly<Record<string, unknown>>): string | null {
  const { id, updated_at: updatedAt, status } = raw;
  if (typeof id !== "string" || typeof updatedAt !== "string" || typeof status !== "string") return null;
  return ctx.state.threats.sameVersion(id, updatedAt, status) === true ? id : null;
}

/** Re-deliveries told before parsing: what `absorbThreat` does for each, without the threat. */
function redelivered(ctx: SyncContext, kind: "threats" | "assets", ids: readonly string[]): void {
  // A retry entry is dropped as `absorbThreat` drops it; most cycles have none to look up.
  const retrying = Object.keys(ctx.state.retry[kind]).length > 0;
  for (const id of ids) {
    if (retrying) putRetry(ctx, kind, id, undefined);
    if (kind === "threats") ctx.emit({ type: "threat_redelivered", threatId: id });
  }
}

/** Records one threat version and queues the work it makes due (transitions/threat-version.ts). */
function absorbThreat(ctx: SyncContext, threat: Threat): void {
  putRetry(ctx, "threats", threat.id, undefined);
  // The stream tells re-deliveries apart before parsing (`unchangedThreat`); a threat read one by
  // one is told apart here, by the one read of its record.
  const view = toThreatView(threat, ctx.config.fields.threat, ctx.policy.wherePaths.threat);
  const link = githubLink(threat);
  const before = ctx.state.threats.get(threat.id);
  const result = applyThreatVersion(before, {
    status: threat.status,
    updatedAt: threat.updated_at,
    severityRank: view.severityRank,
    assetId: view.assetId,
    link: link?.externalId ?? null,
  });
  if (result.kind === "redelivery") {
    // Nothing is written for a re-delivery: an idle re-read of the stream commits nothing.
    ctx.emit({ type: "threat_redelivered", threatId: threat.id });
    return;
  }
  let record = result.record;
  if (pluggedFor(ctx.config).onThreatVersion.length > 0)
    record = threatVersionSeen(ctx, before, record, threat, view.severityRank);
  putThreat(ctx, threat.id, record, before);
  ctx.cache.set(threat.id, { view, link });
  // Grouping, when on, files the version under its group first: in single mode the planner asks for it.
  const grouping = ctx.config.grouping;
  if (grouping !== undefined) noteGroupMember(ctx, grouping, threat.id, view);
  const actions = planFor(ctx, threat.id);
  if (actions.length === 0) {
    ctx.cache.delete(threat.id);
    // The queued create's view is of an older version: the drain reads the threat again.
    dropPending(ctx, threat.id);
    forgetIfIdle(ctx, threat.id);
    ctx.emit({ type: "threat_unchanged", threatId: threat.id });
    return;
  }
  ctx.emit({ type: "threat_due", threatId: threat.id });
  // Its order is derived from the record (queue.ts); only a create's view is kept with it.
  enqueue(
    ctx,
    threat.id,
    actions.some((a) => a.kind === "create") ? { pending: { view, link } } : {},
    nowIso(ctx),
  );
}

async function walk<T>(
  ctx: SyncContext,
  kind: "threats" | "assets",
  pages: AsyncIterable<StreamPage<T>>,
  absorb: (ctx: SyncContext, item: T) => void,
  signal: AbortSignal | undefined,
  afterPage?: (items: number) => Promise<void>,
): Promise<number> {
  let items = 0;
  let sinceCheckpoint = 0;
  for await (const page of pages) {
    if (page.unchanged !== undefined && page.unchanged.length > 0) redelivered(ctx, kind, page.unchanged);
    for (const item of page.items) {
      if (item.ok) absorb(ctx, item.value);
      else noteMalformed(ctx, kind, item);
    }
    items += page.items.length + (page.unchanged?.length ?? 0);
    // The work of this page is recorded in memory; the cursor moves with it in one write.
    if (ctx.state.cursors[kind] !== page.resumeCursor) {
      setMeta(ctx, "cursors", { ...ctx.state.cursors, [kind]: page.resumeCursor });
    }
    sinceCheckpoint += 1;
    if (sinceCheckpoint >= CHECKPOINT_PAGES) {
      sinceCheckpoint = 0;
      await persist(ctx);
    }
    // A stop (SIGTERM) ends the walk between pages; the next start resumes from this cursor.
    if (signal?.aborted) break;
    await afterPage?.(page.items.length + (page.unchanged?.length ?? 0));
  }
  ctx.emit({ type: "stream_read", stream: kind, items });
  return items;
}

/** How a cycle reads a stream. */
export interface StreamReadOptions {
  /** A stop (SIGTERM) ends the walk between pages; the next start resumes from the saved cursor. */
  signal?: AbortSignal | undefined;
  /** Runs between pages with the page's item count, its work recorded with the cursor (in memory). */
  afterPage?: ((items: number) => Promise<void>) | undefined;
  /** A walk that meets the platform's pause ends there, its pages kept; `pausedUntil` says when. */
  endOnPause?: boolean | undefined;
}

export interface StreamRead {
  items: number;
  /** Epoch ms: the walk ended at the platform's pause, and the rest of the stream waits until then. */
  pausedUntil?: number;
}

/**
 * A stream stopped by a refused cursor is not read; a walk refused `request/invalid-cursor` keeps
 * its earlier pages and stops the stream, and the cycle goes on (stream-stops.ts).
 */
async function readStream(
  ctx: SyncContext,
  kind: "threats" | "assets",
  opts: StreamReadOptions,
  read: () => Promise<number>,
): Promise<StreamRead> {
  if (streamStopped(ctx, kind)) return { items: 0 };
  try {
    return { items: await read() };
  } catch (error) {
    const pausedUntil =
      opts.endOnPause && isPlatformPause(error) ? ctx.platform.stats().notBefore : undefined;
    if (pausedUntil !== undefined) {
      ctx.logger.info(
        { stream: kind, not_before: new Date(pausedUntil).toISOString() },
        `the platform asked for a pause (Retry-After) while ${kind} were read; what was read is kept, and the rest is read after it`,
      );
      return { items: 0, pausedUntil };
    }
    if (!isCursorRefusal(error)) throw error;
    noteCursorRefused(ctx, kind, error);
    return { items: 0 };
  }
}

export async function readAssets(ctx: SyncContext, opts: StreamReadOptions = {}): Promise<StreamRead> {
  return readStream(ctx, "assets", opts, () =>
    walk(
      ctx,
      "assets",
      ctx.platform.streamAssets(ctx.state.cursors.assets),
      absorbAsset,
      opts.signal,
      opts.afterPage,
    ),
  );
}

/** `afterPage` runs between pages with the page's item count, its work recorded (cycle.ts drains there). */
export async function readThreats(ctx: SyncContext, opts: StreamReadOptions = {}): Promise<StreamRead> {
  return readStream(ctx, "threats", opts, () => {
    const pages = ctx.platform.streamThreats(ctx.state.cursors.threats, (raw) => unchangedThreat(ctx, raw));
    return walk(ctx, "threats", pages, absorbThreat, opts.signal, opts.afterPage);
  });
}

/** Items that failed to parse are read again one by one (GET) on later cycles. */
export async function retryMalformed(ctx: SyncContext): Promise<void> {
  for (const id of Object.keys(ctx.state.retry.threats)) {
    try {
      const threat = await ctx.platform.getThreat(id);
      if (threat === null) putRetry(ctx, "threats", id, undefined);
      else absorbThreat(ctx, threat);
    } catch (error) {
      const entry = ctx.state.retry.threats[id];
      if (entry) {
        putRetry(ctx, "threats", id, {
          ...entry,
          attempts: entry.attempts + 1,
          lastError: error instanceof Error ? error.message.slice(0, 500) : "unknown error",
        });
      }
      ctx.logger.warn({ threat_id: id, err: error }, "threat still unreadable");
    }
  }
  for (const id of Object.keys(ctx.state.retry.assets)) {
    try {
      const asset = await ctx.platform.getAsset(id);
      if (asset === null) putRetry(ctx, "assets", id, undefined);
      else absorbAsset(ctx, asset);
    } catch (error) {
      const entry = ctx.state.retry.assets[id];
      if (entry) putRetry(ctx, "assets", id, { ...entry, attempts: entry.attempts + 1 });
      ctx.logger.warn({ asset_id: id, err: error }, "asset still unreadable");
    }
  }
}
