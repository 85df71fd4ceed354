import { silentLogger, type Logger } from "../observability/index.js";
import { realSleep, systemClock, type Clock, type Sleep } from "../shared/clock.js";
import { createClientPool } from "./client-pool.js";
import { GitHubError, parseResponse, redactUrl } from "./errors.js";
import { createEtagCache, type EtagEntry } from "./etag-cache.js";
import * as reads from "./issue-reads.js";
import * as writes from "./issue-writes.js";
import {
  createOctokit,
  instrumentedFetch,
  type OctokitAuth,
  type TransportStats,
} from "./octokit-factory.js";
import { createRequestPolicy, type LimitEvent } from "./request-policy.js";
import { GitHubRepository, type IssueSnapshot } from "./schemas.js";
import { getPage } from "./rest-calls.js";
import { createWriteBudget, type WriteBudget } from "./write-budget.js";
import * as who from "./who-changed.js";

export interface GitHubOptions {
  /** https://api.github.com, a GHES `/api/v3` URL, or a local stand-in. */
  apiUrl: string;
  auth: { token: string } | { appId: string | number; privateKey: string; installationId?: number };
  /** 0 = no limit for that knob. */
  writeBudget: { perMinute: number; perHour: number; minIntervalMs: number };
  /** Default "threatbridge". */
  managedLabel?: string;
  logger?: Logger;
  clock?: Clock;
  sleep?: Sleep;
  userAgent?: string;
  request?: { fetch?: typeof fetch };
  /** Time limit of one HTTP attempt (default 30 s). */
  timeoutMs?: number;
  /** ms per second of retry-after and of retry back-off (default 1000; tests make it small). */
  retryAfterBaseValue?: number;
}

export type { LastStateChange } from "./who-changed.js";

export interface GitHubStats {
  requests: number;
  rateLimitPoints: number;
  notModified: number;
  writes: number;
  secondaryLimitHits: number;
  /** Requests sent again after a rate limit or a transient failure (the request policy's retries). */
  retries: number;
}

export interface GitHubGateway {
  /**
   * The issues changed since `since`. Each keeps of its text only the connector's hidden lines
   * (marker, revision): the rest of the body and the assignees are not kept (schemas.ts toListedSnapshot).
   */
  listChangedIssues(
    repo: string,
    since: string | null,
  ): Promise<{ notModified: boolean; issues: IssueSnapshot[]; consistent: boolean }>;
  findIssueByMarker(repo: string, threatId: string, createdSince?: string): Promise<IssueSnapshot | null>;
  getIssue(repo: string, number: number): Promise<IssueSnapshot | null>;
  createIssue(repo: string, input: writes.NewIssue, opts?: writes.WriteOptions): Promise<IssueSnapshot>;
  updateIssue(
    repo: string,
    number: number,
    patch: writes.IssuePatch,
    opts?: writes.WriteOptions,
  ): Promise<IssueSnapshot>;
  /** `POST /issues/{n}/labels`: adds without replacing people's labels; answers the labels after. */
  addLabels(repo: string, number: number, labels: string[], opts?: writes.WriteOptions): Promise<string[]>;
  /** `DELETE /issues/{n}/labels/{name}`; a label already gone is no error. */
  removeLabel(repo: string, number: number, label: string, opts?: writes.WriteOptions): Promise<void>;
  createComment(
    repo: string,
    number: number,
    body: string,
    opts?: writes.WriteOptions,
  ): Promise<{ id: number }>;
  listComments(repo: string, number: number): Promise<Array<{ id: number; body: string }>>;
  lastStateChange(repo: string, number: number): Promise<who.LastStateChange | null>;
  /**
   * `lastStateChange` of several issues at once (answers in the order asked; null where unknown or
   * unreadable, reported in the log): one read of a repository's event list serves them all.
   * `notBefore` is the change poll's previous watermark (see who-changed.ts).
   */
  lastStateChanges(
    issues: readonly IssueSnapshot[],
    notBefore: string | null,
  ): Promise<Array<who.LastStateChange | null>>;
  whoAmI(): Promise<string>;
  budget: WriteBudget;
  stats(): GitHubStats;
  exportEtags(): EtagEntry[];
  importEtags(data: unknown): void;
}

const REPO_PATTERN = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
/** GET retries the request policy may make after a rate limit, and the longest wait it may take. */
const LIMIT_RETRIES_FOR_GET = 2;
const LIMIT_WAIT_MAX_SECONDS = 60;

function checkRepo(repo: string): string {
  if (!REPO_PATTERN.test(repo))
    throw new GitHubError("validation", `"${repo}" is not a repository in owner/name form`);
  return repo;
}

function toAuth(auth: GitHubOptions["auth"]): OctokitAuth {
  if ("token" in auth) return { kind: "token", token: auth.token };
  return {
    kind: "app",
    appId: auth.appId,
    privateKey: auth.privateKey,
    ...(auth.installationId === undefined ? {} : { installationId: auth.installationId }),
  };
}

/** Reads a repository's settings; only `threatbridge check` needs it, so it is not part of the gateway. */
export interface RepositoryReader {
  /** `GET /repos/{owner}/{repo}` through the credentials that serve that repository. */
  repository(repo: string): Promise<GitHubRepository>;
}

export function createGitHub(opts: GitHubOptions): GitHubGateway & RepositoryReader {
  const clock = opts.clock ?? systemClock;
  const logger = (opts.logger ?? silentLogger).child({ component: "github" });
  const baseUrl = opts.apiUrl.replace(/\/+$/, "");
  const managedLabel = opts.managedLabel ?? "threatbridge";
  const retryAfterBaseValue = opts.retryAfterBaseValue ?? 1000;
  const budget = createWriteBudget({ ...opts.writeBudget, clock, sleep: opts.sleep ?? realSleep });
  const transport: TransportStats = { requests: 0, rateLimitPoints: 0, notModified: 0 };
  const counters = { writes: 0, secondaryLimitHits: 0, retries: 0 };
  const fetchImpl = instrumentedFetch(
    opts.request?.fetch ?? globalThis.fetch,
    transport,
    opts.timeoutMs ?? 30_000,
  );
  const etags = createEtagCache();

  /** Both limits hold every write until they pass; only a GET is retried by the plugin. */
  function onLimit(event: LimitEvent): boolean {
    if (event.kind === "secondary") counters.secondaryLimitHits++;
    budget.pauseUntil(clock.now() + event.retryAfterSeconds * retryAfterBaseValue);
    const retry =
      event.method === "GET" &&
      event.retryCount < LIMIT_RETRIES_FOR_GET &&
      event.retryAfterSeconds <= LIMIT_WAIT_MAX_SECONDS;
    logger.warn(
      {
        kind: event.kind,
        retryAfterSeconds: event.retryAfterSeconds,
        method: event.method,
        url: redactUrl(event.url),
        retry,
      },
      "GitHub rate limit hit; writes paused until it passes",
    );
    return retry;
  }

  const policy = createRequestPolicy({
    retryAfterBaseValue,
    clock,
    sleep: opts.sleep ?? realSleep,
    onLimit,
    onRetry: () => {
      counters.retries++;
    },
  });
  const pool = createClientPool({
    auth: toAuth(opts.auth),
    makeContext: (auth) => ({
      baseUrl,
      clock,
      octokit: createOctokit({
        baseUrl,
        auth,
        userAgent: opts.userAgent ?? "threatbridge",
        fetch: fetchImpl,
        logger,
        policy,
      }),
    }),
  });
  /**
   * Whether an actor is the connector. An App's own actions always carry its integration
   * (matched by id or client id, no request needed); a token acts as its user's login.
   */
  async function isSelf(
    login: string,
    app: { id?: number | undefined; client_id?: string | null | undefined } | null,
  ): Promise<boolean> {
    const auth = opts.auth;
    if ("appId" in auth) {
      return app !== null && (app.id === Number(auth.appId) || app.client_id === String(auth.appId));
    }
    return login.toLowerCase() === (await pool.whoAmI()).login.toLowerCase();
  }

  const readDeps: reads.ReadDeps = {
    forRepo: (repo) => pool.forRepo(checkRepo(repo)),
    etags,
    managedLabel,
    onMalformed: (repo, number, reason) =>
      logger.warn(
        { repo, number, reason },
        "GitHub sent an issue that does not parse; it is read again next cycle",
      ),
  };
  const whoDeps: who.WhoDeps = {
    reads: readDeps,
    appAuth: "appId" in opts.auth,
    isSelf,
    onError: (repo, number, error) =>
      logger.warn({ repo, number, err: String(error) }, "could not read who changed the issue"),
  };
  const writeDeps: writes.WriteDeps = {
    forRepo: readDeps.forRepo,
    budget,
    managedLabel,
    countWrite: () => {
      counters.writes++;
    },
  };

  return {
    listChangedIssues: (repo, since) => reads.listChangedIssues(readDeps, repo, since),
    findIssueByMarker: (repo, threatId, createdSince) =>
      reads.findIssueByMarker(readDeps, repo, threatId, createdSince),
    getIssue: (repo, number) => reads.getIssue(readDeps, repo, number),
    listComments: (repo, number) => reads.listComments(readDeps, repo, number),
    createIssue: (repo, input, writeOpts) => writes.createIssue(writeDeps, repo, input, writeOpts),
    async updateIssue(repo, number, patch, writeOpts) {
      if (Object.values(patch).every((value) => value === undefined)) {
        // Nothing to change: a write would only spend budget (contract: zero-cost echoes).
        const current = await reads.getIssue(readDeps, repo, number);
        if (current === null)
          throw new GitHubError("not_found", `${repo}#${number} does not exist (or is a pull request)`);
        return current;
      }
      return writes.updateIssue(writeDeps, repo, number, patch, writeOpts);
    },
    addLabels: (repo, number, labels, writeOpts) =>
      writes.addLabels(writeDeps, repo, number, labels, writeOpts),
    removeLabel: (repo, number, label, writeOpts) =>
      writes.removeLabel(writeDeps, repo, number, label, writeOpts),
    createComment: (repo, number, body, writeOpts) =>
      writes.createComment(writeDeps, repo, number, body, writeOpts),
    lastStateChange: (repo, number) => who.lastStateChange(whoDeps, repo, number),
    lastStateChanges: (issues, notBefore) => who.lastStateChanges(whoDeps, issues, notBefore),
    whoAmI: async () => (await pool.whoAmI()).login,
    async repository(repo) {
      const page = await getPage(await pool.forRepo(checkRepo(repo)), `/repos/${repo}`);
      return parseResponse(GitHubRepository, page.data, "repository");
    },
    budget,
    stats: () => ({ ...transport, ...counters }),
    exportEtags: () => etags.exportEtags(),
    importEtags: (data) => etags.importEtags(data),
  };
}
