import type { Actor } from "./store.js";

/** A handler's answer; the server adds the common headers, ETag and rate-limit headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext {
  method: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The parsed JSON body, or `undefined` when there was none. */
  body: unknown;
  /** Who the credentials act as; `null` on routes authenticated with an app JWT. */
  actor: Actor | null;
  /** The request's absolute URL on the stand-in (used for Link headers). */
  url: URL;
}

export type Handler = (ctx: RequestContext) => Reply;

/** `token`: a token or installation token; `app`: an app JWT (GitHub App mode only). */
export type RouteAuth = "token" | "app";

export interface Route {
  method: string;
  /** GitHub's path template, e.g. `/repos/{owner}/{repo}/issues`; also the key of faults and counters. */
  pattern: string;
  auth: RouteAuth;
  handler: Handler;
}

interface CompiledRoute extends Route {
  regex: RegExp;
  names: string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

export function compileRoutes(routes: Route[]): (method: string, path: string) => RouteMatch | null {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.pattern
      .split("/")
      .map((part) => {
        const m = /^\{(\w+)\}$/.exec(part);
        if (!m?.[1]) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(m[1]);
        return "([^/]+)";
      })
      .join("/");
    return { ...route, regex: new RegExp(`^${source}/?$`), names };
  });
  return (method, path) => {
    for (const route of compiled) {
      if (route.method !== method) continue;
      const m = route.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1] ?? "");
      });
      return { route, params };
    }
    return null;
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Does a request (method + concrete path or template) match a fault's `method` and `routePattern`? */
export function matchesPattern(
  method: string,
  pattern: string,
  reqMethod: string,
  template: string,
  path: string,
): boolean {
  if (method.toUpperCase() !== reqMethod) return false;
  // Parameter names do not matter: `/issues/{number}` names the same route as `/issues/{issue_number}`.
  const shape = (p: string): string => p.replace(/\{\w+\}/g, "{}").replace(/\/$/, "");
  return shape(pattern) === shape(template) || pattern === path;
}
