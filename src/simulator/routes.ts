import { createRouter, type Router } from "../shared/http-router.js";
import type { SimCore } from "./core.js";
import type { Simulator } from "./controls.js";
import { createListHandlers } from "./list-handlers.js";
import type { Handler } from "./request-params.js";
import { createSimHandlers } from "./sim-handlers.js";
import { createThreatHandlers } from "./threat-handlers.js";

/** `token`: the identity provider; `read`/`write`: the `/v1` API (faults apply); `control`: `/_sim/*`. */
export type Access = "token" | "read" | "write" | "control";

export interface Route {
  method: string;
  /** The spec's path template, e.g. `/v1/threats/{threat_id}`. */
  template: string;
  /** Stable name for counters, e.g. "PATCH /v1/threats/{id}". */
  name: string;
  access: Access;
  handle: Handler;
}

function route(method: string, template: string, access: Access, handle: Handler | undefined): Route {
  if (handle === undefined) throw new Error(`no handler for ${method} ${template}`);
  return { method, template, name: `${method} ${template}`, access, handle };
}

export function createRoutes(core: SimCore, sim: Simulator, tokenHandler: Handler): Route[] {
  const list = createListHandlers(core);
  const threat = createThreatHandlers(core);
  const control = createSimHandlers(sim);
  return [
    route("POST", "/oauth/token", "token", tokenHandler),
    route("GET", "/v1/assets", "read", list.assets),
    route("GET", "/v1/assets/{id}", "read", threat.getAsset),
    route("GET", "/v1/assets/{asset_id}/related", "read", list.related),
    route("GET", "/v1/assets/{id}/threats", "read", list.assetThreats),
    route("GET", "/v1/threats", "read", list.threats),
    route("GET", "/v1/threats/{threat_id}", "read", threat.getThreat),
    route("PATCH", "/v1/threats/{threat_id}", "write", threat.patchThreat),
    route("POST", "/v1/threats/{threat_id}/update-note", "write", threat.updateNote),
    route("PUT", "/v1/threats/{threat_id}/external-references/{system}", "write", threat.putReference),
    route("POST", "/_sim/scan", "control", control["scan"]),
    route("POST", "/_sim/faults", "control", control["faults"]),
    route("GET", "/_sim/state", "control", control["state"]),
    route("POST", "/_sim/threats", "control", control["addThreat"]),
    route("GET", "/_sim/threats/{id}", "control", control["getThreat"]),
    route("PATCH", "/_sim/threats/{id}", "control", control["updateThreat"]),
    route("POST", "/_sim/assets", "control", control["addAsset"]),
    route("POST", "/_sim/assets/{id}/remove", "control", control["removeAsset"]),
    route("POST", "/_sim/assets/{id}/restore", "control", control["restoreAsset"]),
    route("POST", "/_sim/settle", "control", control["settle"]),
    route("POST", "/_sim/tokens/revoke", "control", control["revokeTokens"]),
  ];
}

/** Method and path together are the allowlist (spec, Errors: 404 `path/not-allowlisted`). */
export function routerOf(routes: readonly Route[]): Router<Route> {
  // An empty `system` segment reaches its handler, refused by the spec's "1 to 64 characters".
  return createRouter(routes, (r) => r.template, { mayBeEmpty: ["system"] });
}
