import type { ThreatRecord } from "../schema.js";
import type { SyncContext } from "../context.js";
import { putThreat } from "../records/state-updates.js";
import { routeLine } from "../render/route-line.js";
import type { Route } from "../render/types.js";

/**
 * The rule that placed a threat's issue (contract, "Conventions": "An issue that a route placed
 * says so in its body, in one line naming the rule"), kept on the record when the issue is created,
 * so that a later reorder of `routes`, or a rename of the asset, never changes what the line names:
 * the line is rendered from what placed the issue, not from the rule matching now.
 *
 * Kept as the record's `routes` slice (features/types.ts): JSON `[index, [[key, value], …]]` for an
 * issue a route placed, `-` for one no route placed (while routes are configured). A record with an
 * issue and no slice (made before the placement was kept, or while no route was configured) shows
 * the rule matching now.
 */

export const ROUTES_SLICE = "routes";

const NONE = "-";

type Placed = NonNullable<Route["placed"]>;

function encode(placed: Placed | undefined): string {
  return placed === undefined
    ? NONE
    : JSON.stringify([placed.index, placed.matched.map((m) => [m.key, m.value])]);
}

/** The slice's placement: null for "no route placed it", undefined when the slice is absent or unreadable. */
function decode(text: string | undefined): Placed | null | undefined {
  if (text === undefined) return undefined;
  if (text === NONE) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
    const [index, pairs] = parsed as [unknown, unknown];
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || !Array.isArray(pairs))
      return undefined;
    const matched: Placed["matched"] = [];
    for (const pair of pairs as unknown[]) {
      if (!Array.isArray(pair) || typeof pair[0] !== "string" || typeof pair[1] !== "string")
        return undefined;
      matched.push({ key: pair[0], value: pair[1] });
    }
    return { index, matched };
  } catch {
    return undefined;
  }
}

/** The placement kept on the record, as `decode` answers it (the slice read as features/types.ts reads one). */
export function placementOf(record: ThreatRecord | undefined): Placed | null | undefined {
  return decode(record?.slices?.[ROUTES_SLICE]);
}

/**
 * The route as an existing issue shows it: the rule that placed it (or none), where the record keeps
 * that. A record that keeps none (no route was ever configured) is not decoded.
 */
export function shownRoute(record: ThreatRecord | undefined, route: Route): Route {
  if (!record?.issue || record.slices?.[ROUTES_SLICE] === undefined) return route;
  const kept = placementOf(record);
  if (kept === undefined) return route;
  const { placed: _now, ...rest } = route;
  return kept === null ? rest : { ...rest, placed: kept };
}

/** The record with the placement of the issue about to be created (unchanged when it holds it already). */
export function withPlacement(record: ThreatRecord, placed: Placed | undefined): ThreatRecord {
  const text = encode(placed);
  if (record.slices?.[ROUTES_SLICE] === text) return record;
  return { ...record, slices: { ...record.slices, [ROUTES_SLICE]: text } };
}

/**
 * A plan that creates the threat's issue keeps the route that places it on the record, in the same
 * commit as the create's intent (so a crash between them cannot lose it).
 */
export function keepPlacement(
  ctx: SyncContext,
  threatId: string,
  record: ThreatRecord | undefined,
  actions: readonly { kind: string }[],
  route: Route,
): ThreatRecord | undefined {
  if (!record || record.issue || !actions.some((action) => action.kind === "create")) return record;
  const next = withPlacement(record, route.placed);
  if (next !== record) putThreat(ctx, threatId, next, record);
  return next;
}

/** `routes[1]: asset_name *.payments.acme.test`: the rule and what of it matched, as `sync --dry-run` names it. */
export function placedRule(placed: Placed): string {
  return routeLine(placed.index, placed.matched).replace(/^Routed here by /, "");
}
