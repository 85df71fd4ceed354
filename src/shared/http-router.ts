/** Method + path routing for the simulator and the stand-in; the first match wins. */

interface RouterOptions {
  /** Also match the path with one trailing slash (GitHub answers `/user/` as `/user`). */
  trailingSlash?: boolean;
  /** Parameters that may be an empty segment (the platform's `external-references/{system}`). */
  mayBeEmpty?: readonly string[];
}

interface RouteFound<R> {
  route: R;
  /** By name, decoded. */
  params: Record<string, string>;
  /** The same, in the template's order. */
  values: string[];
}

export type Router<R> = (method: string, path: string) => RouteFound<R> | null;

interface Compiled<R> {
  route: R;
  regex: RegExp;
  names: string[];
}

export function createRouter<R extends { method: string }>(
  routes: readonly R[],
  templateOf: (route: R) => string,
  opts: RouterOptions = {},
): Router<R> {
  const empty = new Set(opts.mayBeEmpty ?? []);
  const byMethod = new Map<string, Compiled<R>[]>();
  for (const route of routes) {
    const names: string[] = [];
    const source = templateOf(route)
      .split("/")
      .map((part) => {
        const name = /^\{(\w+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(name);
        return empty.has(name) ? "([^/]*)" : "([^/]+)";
      })
      .join("/");
    const regex = new RegExp(`^${source}${opts.trailingSlash === true ? "/?" : ""}$`);
    const list = byMethod.get(route.method) ?? [];
    list.push({ route, regex, names });
    byMethod.set(route.method, list);
  }
  return (method, path) => {
    for (const { route, regex, names } of byMethod.get(method) ?? []) {
      const m = regex.exec(path);
      if (m === null) continue;
      const values = names.map((_, i) => safeDecode(m[i + 1] ?? ""));
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = values[i] ?? ""));
      return { route, params, values };
    }
    return null;
  };
}

/** A segment that does not decode is left as is (it then fails the handler's validation). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
