import type { RouteRule } from "../../config/index.js";
import type { KeptValue, WhereScalar } from "../../shared/kept-values.js";

export type { KeptValue, WhereScalar };

/**
 * Which route a threat matches (contract, `routes`), pure and request-free: a rule holds when every
 * key holds (and), a key when any of its values does (or); the first rule that holds wins.
 * `severity`, `module`, `asset_type` and `asset_name` globs ignore case; `where` values compare
 * exactly, except that a number equals the string of its digits; a list matches when an item does,
 * and an absent path or null never matches.
 */

export interface RouteFacts {
  /** The canonical severity word (`critical`), or null when unknown. */
  severity: string | null;
  module: string | null;
  assetType: string | null;
  assetName: string | null;
  /** The values `where` reads, by full path (`threat.module_data.port`, `asset.environment`). */
  values: (path: string) => KeptValue | undefined;
}

/** The rule that matched (counted from 0) and what of it matched, in the YAML's key order. */
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
