import type { Route, RouteShown } from "./types.js";
import { truncateWithEllipsis } from "./truncate.js";
import { escapeMarkdownInline } from "./escape.js";

/** The longest route line, in characters (a rule's globs and values are short; the YAML may not be). */
const MAX_ROUTE_LINE = 500;

/** The line an issue a route placed shows (contract, "Conventions"): `Routed here by routes[1]: …`. */
export function routeLine(index: number, matched: readonly { key: string; value: string }[]): string {
  const what = matched.map(({ key, value }) => `${key} ${value}`).join(", ");
  return what === "" ? `Routed here by routes[${index}]` : `Routed here by routes[${index}]: ${what}`;
}

/** The line as shown: one line, bounded (the body's frame has a fixed size), escaped for where it goes. */
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
