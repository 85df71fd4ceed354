import { createRouter } from "../shared/http-router.js";
import type { Reply } from "./reply.js";
import type { Actor } from "./store.js";

export type { Reply } from "./reply.js";

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

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** GitHub's routes, matched with or without a trailing slash, as GitHub does. */
export function compileRoutes(routes: Route[]): (method: string, path: string) => RouteMatch | null {
  const match = createRouter(routes, (r) => r.pattern, { trailingSlash: true });
  return (method, path) => {
    const found = match(method, path);
    return found === null ? null : { route: found.route, params: found.params };
  };
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
