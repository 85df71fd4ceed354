import { getPath } from "./json.js";

/**
 * What the connector keeps of a threat's or an asset's JSON for the routes' `where` paths
 * (contract, `routes`): the values at those paths only, so that matching a route costs no request
 * and the state grows by those values, not by the whole JSON.
 */

/** A value kept for `where`: a scalar, or the scalars of a list (an object can never match). */
export type WhereScalar = string | number | boolean;
export type KeptValue = WhereScalar | WhereScalar[];

/** The most items of a list kept, and the longest string: far more than any field a route reads. */
const MAX_ITEMS = 1_000;
const MAX_STRING = 1_000;

function scalar(value: unknown): WhereScalar | undefined {
  if (typeof value === "string") return value.length <= MAX_STRING ? value : undefined;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean") return value;
  return undefined;
}

/** What `where` can match of a JSON value: a scalar, or a list's scalars; undefined: nothing (null included). */
export function keptValue(value: unknown): KeptValue | undefined {
  if (!Array.isArray(value)) return scalar(value);
  const items: unknown[] = value;
  return items.slice(0, MAX_ITEMS).flatMap((item) => {
    const s = scalar(item);
    return s === undefined ? [] : [s];
  });
}

/**
 * The values at `paths` (full paths, each starting with `root.`) of a JSON value, by full path,
 * those present only; undefined when none is (the record then keeps nothing).
 */
export function pickValues(
  json: unknown,
  root: "threat" | "asset",
  paths: readonly string[],
): Record<string, KeptValue> | undefined {
  let out: Record<string, KeptValue> | undefined;
  for (const path of paths) {
    const value = keptValue(getPath(json, path.slice(root.length + 1)));
    if (value !== undefined) (out ??= {})[path] = value;
  }
  return out;
}

/** A stored value read back: the kept values it holds, or undefined (anything else is dropped). */
export function keptValuesOf(value: unknown): Record<string, KeptValue> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  let out: Record<string, KeptValue> | undefined;
  for (const [path, raw] of Object.entries(value)) {
    const kept = keptValue(raw);
    if (kept !== undefined) (out ??= {})[path] = kept;
  }
  return out;
}
