import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "../shared/clock.js";
import { createAuth } from "./auth.js";
import { commentEventRoutes } from "./comment-event-handlers.js";
import type { HandlerDeps } from "./deps.js";
import { createFaults } from "./faults.js";
import { createFeatures } from "./features.js";
import { issueRoutes } from "./issue-handlers.js";
import { issueTypeRoutes } from "./issue-type-handlers.js";
import { labelRoutes } from "./label-handlers.js";
import { milestoneRoutes } from "./milestone-handlers.js";
import { createPrimaryLimit, createSecondaryLimit } from "./limits.js";
import { appIntegration, miscRoutes } from "./misc-handlers.js";
import { createPersonActions } from "./person.js";
import { PERSON_ROUTE_PREFIX, personRoutes } from "./person-routes.js";
import { createPipeline } from "./pipeline.js";
import { repoActivityRoutes } from "./repo-activity-handlers.js";
import { repoDirectory } from "./repo-settings.js";
import { subIssueRoutes } from "./sub-issue-handlers.js";
import { projectControls } from "./project-controls.js";
import { projectRoutes } from "./project-handlers.js";
import { createProjectStore } from "./project-store.js";
import { compileRoutes } from "./router.js";
import { commentSnapshot, eventSnapshot, issueSnapshot } from "./snapshots.js";
import { createStore } from "./store.js";
import type { RunningStandIn, StandInCounters, StandInOptions } from "./types.js";
import { createWebhookSender } from "./webhooks.js";

/** GitHub.com's primary limit for a token. */
const DEFAULT_PRIMARY_PER_HOUR = 5000;

/** Starts a stateful in-memory stand-in for the parts of GitHub's REST API the connector uses. */
export async function startGitHubStandIn(opts: StandInOptions = {}): Promise<RunningStandIn> {
  const clock = opts.clock ?? systemClock;
  const botLogin = opts.botLogin ?? "threatbridge[bot]";
  const store = createStore(clock);
  const auth = createAuth({ tokens: opts.tokens ?? ["ghp_standin"], appAuth: opts.appAuth, botLogin, clock });
  const primary = createPrimaryLimit(opts.primaryLimit?.perHour ?? DEFAULT_PRIMARY_PER_HOUR, clock);
  const secondary = createSecondaryLimit(opts.secondaryLimit, clock);
  const faults = createFaults();
  const counters: StandInCounters = {
    requests: 0,
    writes: 0,
    rateLimitPoints: 0,
    notModified: 0,
    secondaryLimited: 0,
    byRoute: {},
  };

  const repositories = repoDirectory(opts.repositories);
  const features = createFeatures({
    subIssues: opts.subIssues,
    issueTypes: opts.issueTypes,
    projects: opts.projects,
  });
  const projects = createProjectStore(clock, store.newId);
  let baseUrl = "";
  let match: ReturnType<typeof compileRoutes> = () => null;
  const handle = createPipeline({
    baseUrl: () => baseUrl,
    match: (method, path) => match(method, path),
    auth,
    primary,
    secondary,
    takeFault: faults.take,
    wrote: faults.wrote,
    isArchived: (owner, name) => store.repo(owner, name).archived === true,
    counters,
    repositories,
  });
  const webhooks = createWebhookSender(
    opts.webhook,
    store,
    // Read once a person acts, after the server listens and `deps` exists.
    () => deps.shape,
    () => clock.now(),
  );
  const person = createPersonActions(store, webhooks);
  const control = personRoutes(store, person);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://stand-in").pathname;
    // People's actions (`/_sim/*`) bypass GitHub's pipeline: no token, no limit, no fault.
    const served = path.startsWith(PERSON_ROUTE_PREFIX) ? control(req, res, path) : handle(req, res);
    served.catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ message: `stand-in failed: ${String(error)}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === "string") throw new Error("stand-in did not bind a TCP port");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  const deps: HandlerDeps = {
    store,
    clock,
    perPageMax: opts.perPageMax ?? 100,
    repositories,
    features,
    projects,
    shape: { baseUrl, app: opts.appAuth ? appIntegration(baseUrl, opts.appAuth.appId, botLogin) : null },
  };
  match = compileRoutes([
    // Before the issue routes: `/issues/comments` and `/issues/events` are not `/issues/{issue_number}`.
    ...repoActivityRoutes(deps),
    ...issueRoutes(deps),
    ...commentEventRoutes(deps),
    ...labelRoutes(deps),
    ...subIssueRoutes(deps),
    ...milestoneRoutes(deps),
    ...issueTypeRoutes(deps),
    ...projectRoutes(deps),
    ...miscRoutes(deps, primary, auth),
  ]);

  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    close: () => {
      // Idempotent: tests and the demo may both close the same stand-in.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive connections of clients would otherwise hold `close` open.
        server.closeAllConnections();
      });
      return closing;
    },
    issues: (repo) => {
      const r = store.repoByFullName(repo);
      // Deleted and transferred issues are no longer in this repository, as a person sees it.
      return r.issues
        .filter((i) => !i.deleted && !i.movedTo)
        .map((i) => issueSnapshot(i, store.commentsOf(r, i.number).length));
    },
    comments: (repo, number) => store.commentsOf(store.repoByFullName(repo), number).map(commentSnapshot),
    events: (repo, number) => store.eventsOf(store.repoByFullName(repo), number).map(eventSnapshot),
    counters: () => ({ ...counters, byRoute: { ...counters.byRoute } }),
    person: { ...person, setIssueTypes: features.setIssueTypes },
    webhooks,
    faults: faults.controls,
    projects: projectControls(projects),
  };
}
