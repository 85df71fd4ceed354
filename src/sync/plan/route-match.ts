import type { RouteRule } from "../../config/index.js";
import type { KeptValue, WhereScalar } from "../../shared/kept-values.js";

export type { KeptValue, WhereScalar };

/**
 * Which route a threat matches (contract, `routes`), pure. A rule holds when every key its
 * `match` gives holds (and); a key holds when any of its values does (or). The first rule that
 * holds wins. Matching reads only what intake kept of the threat and its asset: it costs no
 * request.
 *
 * - `severity`, `module`, `asset_type`: the threat's canonical severity, its module, its asset's
 *   type, compared ignoring case.
 * - `asset_name`: globs on the asset's name (fields.asset.name), whole name, ignoring case;
 *   `*` is any run of characters (none included, dots included), `?` exactly one.
 * - `where`: a dotted path into the threat's (`threat.…`) or its asset's (`asset.…`) JSON → the
 *   values it may hold. Strings compare exactly (case included), as do booleans; a number equals
 *   the same number, or the string of its decimal digits (`"443"` in the YAML matches 443 in the
 *   data, and `443` matches `"443"`). A list at the path matches when one of its items does. An
 *   absent path, or null, never matches.
 */

/** What matching reads of one threat. */
export interface RouteFacts {
  /** The canonical severity word (`critical`), or null when unknown. */
  severity: string | null;
  module: string | null;
  assetType: string | null;
  assetName: string | null;
  /** The values `where` reads, by full path (`threat.module_data.port`, `asset.environment`). */
  values: (path: string) => KeptValue | undefined;
}

/**
 * The rule that matched, counted from 0 as in the config, and what of it matched: severity,
 * module, asset_type, asset_name, then `where`'s paths as the YAML gives them.
 */
export interface RouteMatched {
  index: number;
  rule: RouteRule;
  /** One entry per key of the rule's `match`: the key (or path) and the value that matched. */
  matched: { key: string; value: string }[];
}

interface CompiledRoute {
  index: number;
  rule: RouteRule;
  globs: { source: string; re: RegExp }[] | null;
  where: [string, readonly WhereScalar[]][];
}

/** A glob as a whole-name, case-insensitive expression: `*` any run, `?` one code point. */
export function globRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`, "isu");
}

/** Whether a name matches a glob (see `globRegExp`). */
export function globMatches(glob: string, name: string): boolean {
  return globRegExp(glob).test(name);
}

/** The rules, with their globs compiled once (a process has one config). */
export function compileRoutes(rules: readonly RouteRule[]): readonly CompiledRoute[] {
  return rules.map((rule, index) => ({
    index,
    rule,
    globs: rule.match.asset_name?.map((source) => ({ source, re: globRegExp(source) })) ?? null,
    where: Object.entries(rule.match.where ?? {}),
  }));
}

/** Every `where` path the rules read, by the JSON it starts in (what intake keeps). */
export function wherePaths(rules: readonly RouteRule[]): { threat: string[]; asset: string[] } {
  const paths = new Set(rules.flatMap((rule) => Object.keys(rule.match.where ?? {})));
  const sorted = [...paths].sort();
  return {
    threat: sorted.filter((p) => p.startsWith("threat.")),
    asset: sorted.filter((p) => p.startsWith("asset.")),
  };
}

/** Whether a value in the data equals a value from the YAML (see the module comment). */
function equals(data: WhereScalar, wanted: WhereScalar): boolean {
  if (typeof data === typeof wanted) return data === wanted;
  if (typeof data === "number" && typeof wanted === "string") return String(data) === wanted;
  if (typeof data === "string" && typeof wanted === "number") return data === String(wanted);
  return false;
}

/** The first wanted value the data holds, or undefined. */
function whereMatch(data: KeptValue | undefined, wanted: readonly WhereScalar[]): WhereScalar | undefined {
  if (data === undefined) return undefined;
  const items = Array.isArray(data) ? data : [data];
  return wanted.find((w) => items.some((d) => equals(d, w)));
}

function anyOf(list: readonly string[], value: string | null): string | undefined {
  if (value === null) return undefined;
  const v = value.toLowerCase();
  return list.find((x) => x.toLowerCase() === v);
}

/** What of the rule matched, or null when a key does not hold. */
function matchRule(route: CompiledRoute, facts: RouteFacts): RouteMatched["matched"] | null {
  const { match } = route.rule;
  const matched: RouteMatched["matched"] = [];
  const listed: [string, readonly string[] | undefined, string | null][] = [
    ["severity", match.severity, facts.severity],
    ["module", match.module, facts.module],
    ["asset_type", match.asset_type, facts.assetType],
  ];
  for (const [key, list, value] of listed) {
    if (list === undefined) continue;
    const hit = anyOf(list, value);
    if (hit === undefined) return null;
    matched.push({ key, value: hit });
  }
  if (route.globs !== null) {
    const name = facts.assetName;
    const hit = name === null ? undefined : route.globs.find((g) => g.re.test(name));
    if (hit === undefined) return null;
    matched.push({ key: "asset_name", value: hit.source });
  }
  for (const [path, wanted] of route.where) {
    const hit = whereMatch(facts.values(path), wanted);
    if (hit === undefined) return null;
    matched.push({ key: path, value: String(hit) });
  }
  return matched;
}

/** The first rule that matches (contract: first matching rule wins), or null: none does. */
export function firstMatch(routes: readonly CompiledRoute[], facts: RouteFacts): RouteMatched | null {
  for (const route of routes) {
    const matched = matchRule(route, facts);
    if (matched !== null) return { index: route.index, rule: route.rule, matched };
  }
  return null;
}
