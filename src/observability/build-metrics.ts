import { Counter, Gauge, type Registry } from "prom-client";
import type { RequestCount } from "../shared/request-tally.js";
import type { MetricsSources } from "./metrics-sources.js";

/** What `threatbridge_build_info` names: which build of the connector answers. */
export interface BuildInfo {
  /** package.json's version. */
  version: string;
  /** The commit it was built from (the image's THREATBRIDGE_REVISION); "unknown" when not given. */
  revision: string;
  /** The Node version it runs on (`process.version`). */
  node: string;
}

/** The build as this process knows it: the revision from the environment the image sets. */
export function buildInfo(
  version: string,
  env: Readonly<Record<string, string | undefined>>,
  node = process.version,
): BuildInfo {
  const revision = env["THREATBRIDGE_REVISION"]?.trim();
  return { version, revision: revision === undefined || revision === "" ? "unknown" : revision, node };
}

/** A counter labelled by method and status that mirrors a tally kept elsewhere (read at scrape time). */
function requestCounter(registry: Registry, name: string, help: string, read: () => RequestCount[]): void {
  const counter: Counter = new Counter({
    name,
    help,
    labelNames: ["method", "status"],
    registers: [registry],
    collect() {
      counter.reset();
      for (const { method, status, count } of read()) counter.inc({ method, status }, count);
    },
  });
}

/**
 * `threatbridge_build_info` (always 1, the build in its labels, the Prometheus convention for
 * joining a version onto other series) and the request counters by method and status. Their
 * label values are bounded (shared/request-tally.ts): a method is one of the HTTP verbs or
 * `other`, a status is the answer's code or `error` when no answer came.
 */
export function registerBuildAndRequestMetrics(
  registry: Registry,
  sources: MetricsSources,
  build: BuildInfo | undefined,
): void {
  if (build !== undefined) {
    const info = new Gauge({
      name: "threatbridge_build_info",
      help: "The connector's build: version (package.json), revision (the commit, or unknown) and Node version; always 1",
      labelNames: ["version", "revision", "node"],
      registers: [registry],
    });
    info.set({ version: build.version, revision: build.revision, node: build.node }, 1);
  }
  requestCounter(
    registry,
    "threatbridge_github_requests_total",
    "GitHub API requests sent, by method and status (the HTTP code, or error when no answer came)",
    () => sources.github().byOutcome,
  );
  requestCounter(
    registry,
    "threatbridge_platform_requests_total",
    "Platform API requests sent, by method and status (the HTTP code, or error when no answer came)",
    () => sources.platform().byOutcome,
  );
}
