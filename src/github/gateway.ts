import { silentLogger, type Logger } from "../observability/logger.js";
import { realSleep, systemClock, type Clock, type Sleep } from "../shared/clock.js";
import { createRequestTally, type RequestCount } from "../shared/request-tally.js";
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
import { afterGrace, IN_FLIGHT_GRACE_MS, stoppableSleep } from "./stop.js";
import { GitHubIssueList, GitHubRepository, type IssueSnapshot } from "./schemas.js";
import { getPage } from "./rest-calls.js";
import { createWriteBudget, type WriteBudget } from "./write-budget.js";
import * as who from "./who-changed.js";
import * as milestones from "./milestones.js";
import { MilestoneBook, type MilestoneApi } from "./milestone-book.js";
import * as subIssues from "./sub-issues.js";
import { createConversation, type GitHubConversation } from "./conversation.js";
import { DEFAULT_MANAGED_LABEL, GROUP_LABEL } from "../shared/labels.js";
import {
  createIssueTypePolicy,
  isTypeRefusal,
  listIssueTypes,
  offerOf,
  type IssueTypeOffer,
} from "./issue-types.js";

export interface GitHubOptions {
  /** https://api.github.com, a GHES `/api/v3` URL, or a local stand-in. */
  apiUrl: string;
  auth: { token: string } | { appId: string | number; privateKey: string; installationId?: number };
  /** 0 = no limit for that knob. */
  writeBudget: { perMinute: number; perHour: number; minIntervalMs: number };
  /** Default "threatbridge". */
  managedLabel?: string;
  /** `github.issue_type`: the `type` of every issue created where the repository offers it. */
  issueType?: string | undefined;
  logger?: Logger;
  clock?: Clock;
  sleep?: Sleep;
  userAgent?: string;
  request?: { fetch?: typeof fetch };
  /** Time limit of one HTTP attempt (default 30 s). */
  timeoutMs?: number;
  /** Stopping: waits end, no request starts, one in flight is cut after a grace (stop.ts). */
  stop?: AbortSignal | undefined;
  /** ms per second of retry-after and of retry back-off (default 1000; tests make it small). */
  retryAfterBaseValue?: number;
}

export type { LastStateChange } from "./who-changed.js";

export interface GitHubStats {
  requests: number;
  /** The requests by method and status (`error` when no answer came). */
  byOutcome: RequestCount[];
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
   * (marker, revision): the rest of the body is not kept (schemas.ts toListedSnapshot); its
   * assignees, labels, state and milestone are.
   */
  listChangedIssues(
    repo: string,
    since: string | null,
  ): Promise<{ notModified: boolean; issues: IssueSnapshot[]; consistent: boolean }>;
  findIssueByMarker(
    repo: string,
    threatId: string,
    createdSince?: string,
    occurrence?: number,
  ): Promise<IssueSnapshot | null>;
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
  /** `lastStateChange` of several issues, in the order asked (null where unknown), from one event list read. */
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

/** GitHub's sub-issues and milestones, apart from {@link GitHubGateway} so the engine's fakes stay small. */
export interface GitHubWorkflow {
  /**
   * Sub-issues (`child` by issue id); `{ available: false }` where the repository has none, never a
   * throw. A 404/410 may also mean the parent is gone: read it before concluding.
   */
  addSubIssue(
    repo: string,
    parentNumber: number,
    childId: number,
    opts?: writes.WriteOptions & { replaceParent?: boolean },
  ): Promise<subIssues.AttachResult>;
  removeSubIssue(
    repo: string,
    parentNumber: number,
    childId: number,
    opts?: writes.WriteOptions,
  ): Promise<subIssues.DetachResult>;
  listSubIssues(repo: string, parentNumber: number): Promise<subIssues.SubIssueList>;
  /** The group's parent found by its marker among the issues created since `createdSince`. */
  findGroupParent(repo: string, marker: string, createdSince?: string): Promise<IssueSnapshot | null>;
  /** Every group-labelled issue of the repository, open or closed: finds a group's issue after a lost state. */
  listGroupIssues(repo: string): Promise<IssueSnapshot[]>;
  /** The parent issue, or null (GitHub answers 404 alike for no parent and for no sub-issues). */
  getParent(repo: string, number: number): Promise<IssueSnapshot | null>;
  /** Milestones (`dueOn` as YYYY-MM-DD; sent as 12:00 UTC, see milestones.ts). */
  listMilestones(repo: string): Promise<milestones.MilestoneList>;
  createMilestone(
    repo: string,
    input: milestones.NewMilestone,
    opts?: writes.WriteOptions,
  ): Promise<milestones.MilestoneCreated>;
  updateMilestone(
    repo: string,
    number: number,
    patch: milestones.MilestonePatch,
    opts?: writes.WriteOptions,
  ): Promise<milestones.MilestoneUpdated>;
  /** The number of the milestone of that title, made on demand; null where the repository has none. */
  milestoneNumber(
    repo: string,
    title: string,
    dueOn: string,
  ): Promise<{ number: number; created: boolean } | null>;
  /** Whether the repository has a milestone of that title (a read only); null where it has none. */
  hasMilestone(repo: string, title: string): Promise<boolean | null>;
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
  /** Whether the repository offers the configured issue type; null when none is configured. */
  issueTypeOffer(repo: string): Promise<IssueTypeOffer | null>;
  /** Whether the repository has sub-issues, asked of its newest issue; null when it has none yet. */
  subIssuesOffer?(repo: string): Promise<{ available: true } | subIssues.SubIssueList | null>;
}

export function createGitHub(
  opts: GitHubOptions,
): GitHubGateway & GitHubWorkflow & GitHubConversation & RepositoryReader {
  const clock = opts.clock ?? systemClock;
  const logger = (opts.logger ?? silentLogger).child({ component: "github" });
  const baseUrl = opts.apiUrl.replace(/\/+$/, "");
  const managedLabel = opts.managedLabel ?? DEFAULT_MANAGED_LABEL;
  const retryAfterBaseValue = opts.retryAfterBaseValue ?? 1000;
  const budget = createWriteBudget({
    ...opts.writeBudget,
    clock,
    sleep: stoppableSleep(opts.sleep ?? realSleep, opts.stop),
  });
  const transport: TransportStats = { requests: 0, rateLimitPoints: 0, notModified: 0 };
  const counters = { writes: 0, secondaryLimitHits: 0, retries: 0 };
  const tally = createRequestTally();
  const fetchImpl = instrumentedFetch(
    opts.request?.fetch ?? globalThis.fetch,
    transport,
    opts.timeoutMs ?? 30_000,
    tally,
    opts.stop === undefined ? undefined : afterGrace(opts.stop, IN_FLIGHT_GRACE_MS),
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
        retry_after_seconds: event.retryAfterSeconds,
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
    stop: opts.stop,
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
  /** Whether an actor is the connector: an App by its integration, a token by its user's login. */
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
        { issue: `${repo}#${number}`, reason },
        "GitHub sent an issue that does not parse; it is read again next cycle",
      ),
  };
  const whoDeps: who.WhoDeps = {
    reads: readDeps,
    appAuth: "appId" in opts.auth,
    isSelf,
    onError: (repo, number, error) =>
      logger.warn({ issue: `${repo}#${number}`, err: error }, "could not read who changed the issue"),
  };
  const writeDeps: writes.WriteDeps = {
    forRepo: readDeps.forRepo,
    budget,
    managedLabel,
    countWrite: () => {
      counters.writes++;
    },
  };

  const issueTypes = createIssueTypePolicy({ wanted: opts.issueType, reads: readDeps, logger });
  const milestoneApi: MilestoneApi = {
    listMilestones: (repo) => milestones.listMilestones(readDeps, repo),
    createMilestone: (repo, input, writeOpts) =>
      milestones.createMilestone(writeDeps, readDeps, checkRepo(repo), input, writeOpts),
  };
  // The process's book of milestones by title (the SLA's weekly ones), listed once per repository.
  const milestoneBook = new MilestoneBook((repo, status, message) =>
    logger.warn(
      { repo, status, message },
      "this repository has no milestones; issues there get no SLA milestone",
    ),
  );

  /**
   * A create carries the configured type where offered; a 422 on `type` created nothing, so it is
   * sent once more without it and the repository marked as not offering it.
   */
  async function createIssue(
    repo: string,
    input: writes.NewIssue,
    writeOpts?: writes.WriteOptions,
  ): Promise<IssueSnapshot> {
    const type = input.type ?? (await issueTypes.typeFor(repo));
    if (type === null) return writes.createIssue(writeDeps, repo, input, writeOpts);
    try {
      return await writes.createIssue(writeDeps, repo, { ...input, type }, writeOpts);
    } catch (error) {
      if (!(error instanceof GitHubError) || !isTypeRefusal(error)) throw error;
      issueTypes.refused(repo, error);
      const { type: _refused, ...withoutType } = input;
      return writes.createIssue(writeDeps, repo, withoutType, writeOpts);
    }
  }

  return {
    ...createConversation(readDeps, writeDeps),
    listChangedIssues: (repo, since) => reads.listChangedIssues(readDeps, repo, since),
    findIssueByMarker: (repo, threatId, createdSince, occurrence) =>
      reads.findIssueByMarker(readDeps, repo, threatId, createdSince, occurrence),
    getIssue: (repo, number) => reads.getIssue(readDeps, repo, number),
    listComments: (repo, number) => reads.listComments(readDeps, repo, number),
    createIssue,
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
    addSubIssue: (repo, parent, child, writeOpts) =>
      subIssues.addSubIssue(writeDeps, checkRepo(repo), parent, child, writeOpts),
    removeSubIssue: (repo, parent, child, writeOpts) =>
      subIssues.removeSubIssue(writeDeps, checkRepo(repo), parent, child, writeOpts),
    listSubIssues: (repo, parent) => subIssues.listSubIssues(readDeps, repo, parent),
    findGroupParent: (repo, marker, createdSince) =>
      reads.findIssueWhose(
        readDeps,
        checkRepo(repo),
        (body) => body?.includes(marker) === true,
        createdSince,
      ),
    listGroupIssues: (repo) => reads.listIssuesLabelled(readDeps, checkRepo(repo), GROUP_LABEL),
    getParent: (repo, number) => subIssues.getParent(readDeps, repo, number),
    listMilestones: milestoneApi.listMilestones,
    createMilestone: milestoneApi.createMilestone,
    milestoneNumber: (repo, title, dueOn) => milestoneBook.numberFor(milestoneApi, repo, title, dueOn),
    hasMilestone: (repo, title) => milestoneBook.has(milestoneApi, repo, title),
    updateMilestone: (repo, number, patch, writeOpts) =>
      milestones.updateMilestone(writeDeps, checkRepo(repo), number, patch, writeOpts),
    async issueTypeOffer(repo) {
      if (opts.issueType === undefined) return null;
      return offerOf(opts.issueType, await listIssueTypes(readDeps, repo));
    },
    async subIssuesOffer(repo) {
      const page = await getPage(await pool.forRepo(checkRepo(repo)), `/repos/${repo}/issues`, {
        state: "all",
        per_page: 1,
      });
      const newest = parseResponse(GitHubIssueList, page.data, "issue list")[0];
      if (newest === undefined) return null;
      const list = await subIssues.listSubIssues(readDeps, repo, newest.number);
      return list.available ? { available: true } : list;
    },
    async repository(repo) {
      const page = await getPage(await pool.forRepo(checkRepo(repo)), `/repos/${repo}`);
      return parseResponse(GitHubRepository, page.data, "repository");
    },
    budget,
    stats: () => ({ ...transport, ...counters, byOutcome: tally.counts() }),
    exportEtags: () => etags.exportEtags(),
    importEtags: (data) => etags.importEtags(data),
  };
}
