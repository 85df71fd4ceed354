/**
 * Just enough of npm's semver ranges to check `engines.node` fields: `||` alternatives of
 * space-separated comparators (`^X.Y.Z`, `~X.Y.Z`, `>=`, `>`, `<=`, `<`, `=`, bare or partial
 * versions such as `20` or `1.x`, `*`). Versions here are plain `X.Y.Z` (no prerelease).
 */

export type Version = [number, number, number];

export function parseVersion(text: string): Version {
  const parts = text.replace(/^v/, "").split(".");
  const num = (i: number) => {
    const p = parts[i];
    return p === undefined || p === "x" || p === "*" ? 0 : Number(p);
  };
  return [num(0), num(1), num(2)];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** How many leading numeric parts a partial version gives (`20` → 1, `1.2` → 2, `1.2.3` → 3). */
function precision(text: string): number {
  return text.split(".").filter((p) => /^\d+$/.test(p)).length;
}

function satisfiesComparator(v: Version, comparator: string): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(comparator);
  const op = m?.[1] ?? "";
  const text = m?.[2] ?? "";
  if (text === "*" || text === "x" || text === "") return true;
  const base = parseVersion(text);
  const c = compare(v, base);
  const p = precision(text);
  switch (op) {
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case "<":
      return c < 0;
    case "^": {
      if (c < 0) return false;
      if (base[0] > 0 || p === 1) return v[0] === base[0];
      if (base[1] > 0 || p === 2) return v[0] === 0 && v[1] === base[1];
      return v[0] === 0 && v[1] === 0 && v[2] === base[2];
    }
    case "~":
      return c >= 0 && v[0] === base[0] && (p === 1 || v[1] === base[1]);
    default:
      // `20` is 20.x.x, `1.2` is 1.2.x, `1.2.3` is exactly that.
      return v[0] === base[0] && (p < 2 || v[1] === base[1]) && (p < 3 || v[2] === base[2]);
  }
}

export function satisfies(version: string | Version, range: string): boolean {
  const v = typeof version === "string" ? parseVersion(version) : version;
  return range.split("||").some((alternative) =>
    alternative
      .trim()
      .replace(/(\^|~|>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/)
      .filter((c) => c !== "")
      .every((c) => satisfiesComparator(v, c)),
  );
}

/** The lowest version each alternative of a range admits (`^22.13.0 || >=24` → 22.13.0, 24.0.0). */
export function lowerBounds(range: string): Version[] {
  return range.split("||").map((alternative) => {
    const lows = alternative
      .trim()
      .replace(/(\^|~|>=|=)\s+/g, "$1")
      .split(/\s+/)
      .map((c) => /^(\^|~|>=|=)?(\d[\d.x]*)$/.exec(c))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => parseVersion(m[2] ?? "0"));
    return lows.sort(compare).at(-1) ?? [0, 0, 0];
  });
}
