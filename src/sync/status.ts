import {
  drainSeconds,
  drainView,
  formatWhen,
  queuedText,
  type BudgetLimits,
  type DrainView,
} from "../observability/eta.js";
import type { EngineState } from "./records/threat-records.js";
import type { Feature, FeatureCounts, FeatureListing } from "./features/types.js";
import { SEVERITIES } from "../shared/severity.js";
import { BACKLOG_NAMES, queueSummary, type QueueSummary } from "./plan/queue-order.js";
import { stoppedStreams, stoppedText, type StreamKind } from "./stopped-streams.js";

/** What `threatbridge status` shows (contract): a pure summary of the state, the lock and the write budget. */

/** The lock as `status` sees it (src/state/lock-judge.ts `inspectLock` reads the lock file). */
export type LockStatus =
  | { held: false }
  | { held: true; pid: number; hostname: string; since: string; lastSeen: string; alive: boolean | null }
  | { held: true; damaged: true; lastSeen: string };

interface StatusInput {
  state: EngineState;
  nowMs: number;
  budget: BudgetLimits;
  lock: LockStatus;
}

interface StatusReport {
  generatedAt: string;
  lock: LockStatus;
  cursors: { assets: string | null; threats: string | null };
  /** Streams stopped by a refused saved cursor, until `threatbridge rewind`. */
  streamsStopped: Array<{ stream: StreamKind; at: string; detail: string }>;
  threats: { known: number; mapped: number; gone: number };
  issues: { open: number; closed: number; byRepository: Record<string, number> };
  lastCycle: EngineState["lastCycle"];
  /** The most recent error: the last cycle's, else the latest failing queue entry's. */
  lastError: { message: string; threatId?: string } | null;
  intents: Array<{ id: string; kind: string; threatId: string; repo: string; startedAt: string }>;
  queue: QueueSummary;
  /** The queue in the order an operator reads it, with its ETA at the configured write budget. */
  backlog: {
    total: number;
    byAction: Array<[string, number]>;
    bySeverity: Array<[string, number]>;
    etaSeconds: number | null;
    budget: BudgetLimits;
    /** The last cycle stopped early (a stop, an error): its reads may not have reached the streams' end. */
    moreToRead: boolean;
  };
  retry: { threats: number; assets: number };
  /** Steps GitHub or the platform refused for good: resolved, not retried. */
  refused: Array<{ threatId: string; action: string; reason: string; at: string }>;
  /** Issues people deleted: those threats are no longer managed. */
  deletedIssues: Array<{ threatId: string; issue: string }>;
}

/** Severities from the most to the least severe ("severities in order"). */
const SEVERITY_ORDER = [...SEVERITIES].reverse();

function ordered(counts: Record<string, number>, order: readonly string[]): Array<[string, number]> {
  return order.filter((k) => (counts[k] ?? 0) > 0).map((k): [string, number] => [k, counts[k] ?? 0]);
}

function lastError(state: EngineState): StatusReport["lastError"] {
  if (state.lastCycle?.error !== undefined) return { message: state.lastCycle.error };
  let latest: { message: string; threatId: string; seq: number } | null = null;
  for (const [threatId, entry] of Object.entries(state.queue)) {
    if (entry.lastError === undefined) continue;
    if (latest === null || entry.seq > latest.seq)
      latest = { message: entry.lastError, threatId, seq: entry.seq };
  }
  return latest === null ? null : { message: latest.message, threatId: latest.threatId };
}

/** What binds the backlog's writes as the last cycle left it: the budget's windows, a Retry-After, the rate limit. */
function backlogView(input: StatusInput): DrainView {
  const gh = input.state.lastCycle?.github;
  const paused = gh?.pausedUntil === undefined ? NaN : Date.parse(gh.pausedUntil);
  return drainView(
    { ...input.budget, recent: gh?.recentWrites ?? [], pausedUntil: Number.isNaN(paused) ? null : paused },
    gh?.rateLimit ?? null,
  );
}

export function summarize(input: StatusInput): StatusReport {
  const { state } = input;
  const queue = queueSummary(state);
  const report: StatusReport = {
    generatedAt: new Date(input.nowMs).toISOString(),
    lock: input.lock,
    cursors: { ...state.cursors },
    streamsStopped: stoppedStreams(state.cursorRefused),
    threats: { known: 0, mapped: 0, gone: 0 },
    issues: { open: 0, closed: 0, byRepository: {} },
    lastCycle: state.lastCycle,
    lastError: lastError(state),
    intents: Object.values(state.intents).map((i) => ({
      id: i.id,
      kind: i.kind,
      threatId: i.threatId,
      repo: i.repo,
      startedAt: i.startedAt,
    })),
    queue,
    backlog: {
      total: queue.total,
      byAction: ordered(queue.byAction, BACKLOG_NAMES),
      bySeverity: ordered(queue.bySeverity, SEVERITY_ORDER),
      etaSeconds: queue.total === 0 ? 0 : drainSeconds(queue.total, backlogView(input), input.nowMs),
      budget: input.budget,
      moreToRead: state.lastCycle?.error !== undefined,
    },
    retry: {
      threats: Object.keys(state.retry.threats).length,
      assets: Object.keys(state.retry.assets).length,
    },
    refused: [],
    deletedIssues: [],
  };
  const tally = state.threats.tally();
  for (const [threatId, record] of tally.special) {
    if (record.refused) report.refused.push({ threatId, ...record.refused });
    if (record.deletedIssue) {
      report.deletedIssues.push({
        threatId,
        issue: `${record.deletedIssue.repo}#${record.deletedIssue.number}`,
      });
    }
  }
  report.threats.known += tally.known;
  report.threats.gone += tally.gone;
  report.threats.mapped += tally.mapped;
  report.issues.open += tally.open;
  report.issues.closed += tally.closed;
  for (const [repo, n] of Object.entries(tally.byRepository))
    report.issues.byRepository[repo] = (report.issues.byRepository[repo] ?? 0) + n;
  return report;
}

/** Each configured feature's counts from the stored records, under its name. */
export function featureCounts(
  features: readonly Feature[],
  state: EngineState,
  nowMs: number,
): Record<string, FeatureCounts> {
  return Object.fromEntries(
    features.flatMap((f) => (f.status?.counts ? [[f.name, f.status.counts(state.threats, nowMs)]] : [])),
  );
}

/** What each configured feature lists of the stored records (`FeatureStatus.listing`), by feature. */
export function featureListings(
  features: readonly Feature[],
  state: EngineState,
): Record<string, FeatureListing> {
  return Object.fromEntries(
    features.flatMap((f) => {
      const listing = f.status?.listing?.(state.threats);
      return listing ? [[f.name, listing]] : [];
    }),
  );
}

/** The status lines of the features' listings and counts, in the registry's order. */
export function featureLines(
  features: readonly Feature[],
  counts: Record<string, FeatureCounts>,
  listings: Record<string, FeatureListing> = {},
): string[] {
  return features.flatMap((f) => {
    const counted = counts[f.name];
    const text = listings[f.name]?.text;
    return [...(text ? [text] : []), ...(counted && f.status?.line ? [f.status.line(counted)] : [])];
  });
}

const short = (cursor: string | null): string =>
  cursor === null ? "(start)" : cursor.length <= 16 ? cursor : `${cursor.slice(0, 12)}…`;

function formatLock(lock: LockStatus, now: number): string {
  if (!lock.held) return "free: no process works on this state now";
  if ("damaged" in lock) return `a damaged lock file (last written ${formatWhen(lock.lastSeen, now)})`;
  const who = `pid ${lock.pid} on ${lock.hostname}`;
  const alive =
    lock.alive === true
      ? "running"
      : lock.alive === false
        ? "not running: the next start takes the lock over"
        : `last sign of life ${formatWhen(lock.lastSeen, now)}`;
  return `held by ${who} since ${formatWhen(lock.since, now)} (${alive})`;
}

function formatGitHub(report: StatusReport, now: number): string {
  const b = report.backlog.budget;
  const limits =
    b.perMinute === 0 && b.perHour === 0 && b.minIntervalMs === 0
      ? "no write budget set"
      : `write budget ${b.perMinute || "∞"}/min, ${b.perHour || "∞"}/h, ${b.minIntervalMs} ms apart`;
  const gh = report.lastCycle?.github;
  if (!gh) return `${limits}; nothing seen yet`;
  const used =
    `${gh.writes} writes by the process of the last cycle` +
    (b.perHour > 0 ? `, ${gh.usedLastHour} of ${b.perHour} in its last hour` : "");
  const rl = gh.rateLimit;
  const rate = rl
    ? `GitHub rate limit ${rl.remaining}${rl.limit !== null ? `/${rl.limit}` : ""} left as seen ${formatWhen(rl.seenAt, now)}${rl.resetAt ? `, resets ${formatWhen(rl.resetAt, now)}` : ""}`
    : "GitHub's rate limit not seen";
  return `${limits}; ${used}\n            ${rate}`;
}

/** An idle poll writes nothing, so an old last-cycle time is not a stalled daemon: said beside it. */
const IDLE_NOTE = "\n            (idle polls since write nothing; the daemon's /metrics shows its latest)";

function isRunning(lock: LockStatus): boolean {
  return lock.held && !("damaged" in lock) && lock.alive === true;
}

export function formatStatus(report: StatusReport, nowMs: number, features: readonly string[] = []): string {
  const last = report.lastCycle;
  const lines = [
    `lock:       ${formatLock(report.lock, nowMs)}`,
    `cursors:    assets ${short(report.cursors.assets)}  threats ${short(report.cursors.threats)}`,
    ...report.streamsStopped.map((s) => `stopped:    ${stoppedText(s.stream, s)}`),
    `threats:    ${report.threats.known} known, ${report.threats.mapped} with an issue, ${report.threats.gone} of removed assets`,
    `issues:     ${report.issues.open} open, ${report.issues.closed} closed` +
      Object.entries(report.issues.byRepository)
        .map(([repo, n]) => `\n            ${repo}: ${n}`)
        .join(""),
    `last cycle: ${
      last
        ? `${last.ok ? "ok" : "failed"}, finished ${formatWhen(last.finishedAt, nowMs)}, took ${Math.max(0, Math.round((Date.parse(last.finishedAt) - Date.parse(last.startedAt)) / 1000))} s`
        : "never"
    }${last && isRunning(report.lock) ? IDLE_NOTE : ""}`,
    `last error: ${report.lastError ? `${report.lastError.message}${report.lastError.threatId ? ` (threat ${report.lastError.threatId})` : ""}` : "none"}`,
    `intents:    ${report.intents.length} unfinished` +
      report.intents
        .map(
          (i) =>
            `\n            ${i.id} ${i.kind} threat ${i.threatId} in ${i.repo} since ${formatWhen(i.startedAt, nowMs)}`,
        )
        .join(""),
    `backlog:    ${queuedText(report.backlog.total, report.backlog.etaSeconds, report.backlog.budget, report.backlog.moreToRead)}; ${report.queue.failing} failing` +
      (report.backlog.moreToRead ? " (the last cycle stopped before the end of its reads)" : "") +
      `\n            by action:   ${formatCounts(report.backlog.byAction)}` +
      `\n            by severity: ${formatCounts(report.backlog.bySeverity)}`,
    `github:     ${formatGitHub(report, nowMs)}`,
    `unreadable: ${report.retry.threats} threats, ${report.retry.assets} assets (read again each cycle)`,
    `refused:    ${report.refused.length} steps refused for good (not retried on their own${
      report.refused.length > 0 ? "; `threatbridge retry --all` once the cause is fixed" : ""
    })` +
      report.refused
        .map((r) => `\n            threat ${r.threatId} ${r.action} at ${r.at}: ${r.reason}`)
        .join(""),
    `deleted:    ${report.deletedIssues.length} issues deleted by people (no longer managed)` +
      report.deletedIssues.map((d) => `\n            threat ${d.threatId} was ${d.issue}`).join(""),
    ...features,
  ];
  return lines.join("\n");
}

function formatCounts(counts: Array<[string, number]>): string {
  return counts.length === 0 ? "-" : counts.map(([k, v]) => `${k} ${v}`).join(", ");
}
