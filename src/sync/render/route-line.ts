import type { Route, RouteShown } from "./types.js";
import { truncateWithEllipsis } from "./truncate.js";
import { escapeMarkdownInline } from "./escape.js";

/** The longest route line, in characters (a rule's globs and values are short; the YAML may not be). */
const MAX_ROUTE_LINE = 500;

/**
 * The one line an issue that a route placed shows (contract, "Conventions"): the rule, counted
 * from 0 as in the config, and what of it matched, e.g.
 * `Routed here by routes[1]: asset_name *.payments.acme.test, asset.environment prod`.
 * Plain text: the body escapes it where it puts it. An issue no route matched shows none.
 */
export function routeLine(index: number, matched: readonly { key: string; value: string }[]): string {
  const what = matched.map(({ key, value }) => `${key} ${value}`).join(", ");
  return what === "" ? `Routed here by routes[${index}]` : `Routed here by routes[${index}]: ${what}`;
}

/**
 * The line as an issue shows it: one line, bounded like the summary table's cells (the body's
 * frame has a fixed size), and escaped for where it goes (Markdown in a body), so that a glob's
 * `*` or a value's `@` or `#` is shown, not read.
 */
export function inertRouteLine(
  line: string,
  escape: (text: string) => string = escapeMarkdownInline,
): string {
  return escape(truncateWithEllipsis(line.replace(/\s+/g, " ").trim(), MAX_ROUTE_LINE));
}

/** What the issue shows of its route: the rule and its line, or null when no route matched. */
export function routeShown(route: Pick<Route, "placed">): RouteShown | null {
  const placed = route.placed;
  return placed ? { rule: placed.index, line: routeLine(placed.index, placed.matched) } : null;
}
