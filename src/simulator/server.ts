import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { SimCore } from "./core.js";
import { readBody, writeReply } from "./http-io.js";
import { problemBody, ProblemError } from "./problems.js";
import type { RequestContext } from "./request-params.js";
import type { Router } from "../shared/http-router.js";
import { routerOf, type Access, type Route } from "./routes.js";

const BEARER_CHALLENGE = 'Bearer realm="threatbridge-simulator"';

/** Spec, Authentication 2, 4 and 5. Expired and unknown tokens answer 401 `auth/invalid-token`. */
function authorize(core: SimCore, authorization: string | undefined, access: Access): void {
  if (authorization === undefined || authorization.trim() === "") {
    throw new ProblemError("auth/missing-token", "send Authorization: Bearer <access token>", {
      headers: { "WWW-Authenticate": BEARER_CHALLENGE },
    });
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const check = match?.[1] === undefined ? null : core.tokens.check(match[1]);
  if (check === null || !check.ok) {
    const why =
      check === null ? "is not a bearer token" : check.reason === "expired" ? "has expired" : "is not known";
    throw new ProblemError("auth/invalid-token", `the access token ${why}; request a new one`, {
      headers: { "WWW-Authenticate": `${BEARER_CHALLENGE}, error="invalid_token"` },
    });
  }
  if (access === "write" && check.role !== "writer") {
    // Spec, Authentication 5: for writes nothing is written.
    throw new ProblemError("auth/insufficient-role", `client ${check.clientId} may read but not write`);
  }
}

/** Faults are decided before the handler, so an injected 429 or 500 writes nothing. */
function injectFault(core: SimCore, access: Access): "none" | "error-after" {
  const decision = core.faults.decide(access === "write");
  if (decision === "rate-limit") {
    const seconds = core.faults.retryAfterSeconds();
    throw new ProblemError("rate-limit/exceeded", `too many requests; retry in ${seconds} s`, {
      headers: { "Retry-After": String(seconds) },
    });
  }
  if (decision === "error-before")
    throw new ProblemError("server/internal-error", "injected fault: nothing was applied");
  return decision === "error-after" ? "error-after" : "none";
}

function count(core: SimCore, route: Route): void {
  core.counters.requests += 1;
  core.counters.byRoute.set(route.name, (core.counters.byRoute.get(route.name) ?? 0) + 1);
  if (route.access === "token") core.counters.tokenRequests += 1;
}

async function dispatch(
  core: SimCore,
  match: Router<Route>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://simulator.invalid");
  const path = url.pathname;
  const found = match(method, path);
  if (found === null)
    throw new ProblemError("path/not-allowlisted", `${method} ${path} is not an endpoint of this API`);
  count(core, found.route);
  const { access } = found.route;
  if (access === "token" && core.faults.decideToken()) {
    writeReply(res, { status: 500, json: { error: "server_error", error_description: "injected fault" } });
    return;
  }
  let after: "none" | "error-after" = "none";
  if (access === "read" || access === "write") {
    after = injectFault(core, access);
    authorize(core, req.headers.authorization, access);
  }
  let body: Promise<string> | undefined;
  const ctx: RequestContext = {
    method,
    path,
    query: url.searchParams,
    params: found.values,
    headers: req.headers,
    body: () => (body ??= readBody(req)),
  };
  const reply = await found.route.handle(ctx);
  if (after === "error-after") {
    throw new ProblemError("server/internal-error", "injected fault: the write was applied, the answer lost");
  }
  writeReply(res, reply);
}

/** The node:http listener: routing, `X-Request-ID` on every answer, problems for every error. */
export function createListener(core: SimCore, routes: readonly Route[]): RequestListener {
  const match = routerOf(routes);
  return (req, res) => {
    res.setHeader("X-Request-ID", randomUUID());
    dispatch(core, match, req, res).catch((error: unknown) => {
      const problem =
        error instanceof ProblemError
          ? error
          : new ProblemError("server/internal-error", "unexpected error in the simulator", { cause: error });
      const instance = new URL(req.url ?? "/", "http://simulator.invalid").pathname;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // Drain an unread body so the connection can be reused.
      req.resume();
      writeReply(res, {
        status: problem.status,
        json: problemBody(core.baseUrl(), problem.suffix, problem.message, instance),
        contentType: "application/problem+json",
        headers: problem.headers,
      });
    });
  };
}
