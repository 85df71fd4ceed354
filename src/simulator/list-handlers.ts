import type { SimCore } from "./core.js";
import type { ChangeLog, LogEntry, Logged } from "./change-log.js";
import type { CursorEndpoint } from "./cursors.js";
import { ProblemError } from "./problems.js";
import { toApiAsset, toApiThreat } from "./records.js";
import {
  cursorParam,
  page,
  parseLimit,
  requireUuid,
  type Handler,
  type RequestContext,
} from "./request-params.js";

/** One page of a change log (spec, list behaviour 1–6): only an empty read answers `next_cursor: null`. */
function readStream<R extends Logged, T>(
  core: SimCore,
  ctx: RequestContext,
  endpoint: CursorEndpoint,
  log: ChangeLog<R>,
  accept: (entry: LogEntry<R>, nowMs: number) => T | null,
): { items: T[]; next: string | null } {
  const limit = parseLimit(ctx.query);
  const cursor = cursorParam(ctx.query);
  const from = cursor === null ? 0 : core.cursors.decode(endpoint, cursor);
  if (from > log.length)
    throw new ProblemError("request/invalid-cursor", "the cursor points past the stream");
  const nowMs = core.store.now();
  const scan = log.scan(from, {
    limit,
    nowMs,
    withholdRecentMs: core.faults.withholdRecentMs(),
    accept: (entry) => accept(entry, nowMs),
  });
  const next = scan.items.length === 0 && scan.atEnd ? null : core.cursors.encode(endpoint, scan.next);
  return { items: scan.items, next };
}

/** A page of a current view, by offset; an unknown asset is 404 without a cursor, an empty page with one. */
function readView<R, T>(
  core: SimCore,
  ctx: RequestContext,
  endpoint: CursorEndpoint,
  view: () => R[] | null,
  render: (row: R) => T,
): { items: T[]; next: string | null } | null {
  const limit = parseLimit(ctx.query);
  const cursor = cursorParam(ctx.query);
  const offset = cursor === null ? 0 : core.cursors.decode(endpoint, cursor);
  const all = view();
  if (all === null) return cursor === null ? null : { items: [], next: null };
  const items = all.slice(offset, offset + limit).map(render);
  return { items, next: items.length === 0 ? null : core.cursors.encode(endpoint, offset + items.length) };
}

export function createListHandlers(
  core: SimCore,
): Record<"assets" | "threats" | "related" | "assetThreats", Handler> {
  const { store } = core;
  return {
    assets: (ctx) => {
      const { items, next } = readStream(core, ctx, "assets", store.assetLog, (entry) => {
        // At-least-once (spec, list rule 3): some items come again later, unchanged.
        if (!entry.replay && core.faults.duplicate()) store.replayAsset(entry.item);
        return toApiAsset(entry.item, entry.position);
      });
      return page("assets", items, next);
    },
    threats: (ctx) => {
      const { items, next } = readStream(core, ctx, "threats", store.threatLog, (entry, nowMs) => {
        // Threats of removed assets do not appear (spec, GET /v1/threats).
        if (!store.isVisible(entry.item)) return null;
        if (!entry.replay && core.faults.duplicate()) store.replayThreat(entry.item);
        return toApiThreat(entry.item, entry.position, nowMs);
      });
      return page("threats", items, next);
    },
    related: (ctx) => {
      const assetId = requireUuid(ctx.params[0], "asset_id");
      // Related assets rules 1–5: symmetric, never itself, no removed assets, 404 only cursor-less.
      const result = readView(
        core,
        ctx,
        "related",
        () => (store.assets.has(assetId) ? store.neighbours(assetId) : null),
        (asset) => toApiAsset(asset, store.assetLog.positionOf(asset)),
      );
      if (result === null) throw new ProblemError("resource/not-found", `no asset ${assetId}`);
      return page("assets", result.items, result.next);
    },
    assetThreats: (ctx) => {
      const assetId = requireUuid(ctx.params[0], "id");
      const nowMs = store.now();
      const result = readView(
        core,
        ctx,
        "asset-threats",
        () => {
          const asset = store.assets.get(assetId);
          if (asset === undefined) return null;
          // Threats of a removed asset have left the API (spec, Asset lifecycle).
          return store.isLive(asset) ? store.threatsOf(assetId).sort((a, b) => a.logIndex - b.logIndex) : [];
        },
        (threat) => toApiThreat(threat, store.threatLog.positionOf(threat), nowMs),
      );
      if (result === null) throw new ProblemError("resource/not-found", `no asset ${assetId}`);
      return page("threats", result.items, result.next);
    },
  };
}
