import type { State } from "../state/index.js";
import { queueSummary, type QueueSummary } from "./queue.js";

/** What `threatbridge status` shows: a pure summary of the state file. */
export interface StatusReport {
  cursors: { assets: string | null; threats: string | null };
  threats: { known: number; mapped: number; gone: number };
  issues: { open: number; closed: number; byRepository: Record<string, number> };
  lastCycle: State["lastCycle"];
  intents: Array<{ id: string; kind: string; threatId: string; repo: string; startedAt: string }>;
  queue: QueueSummary;
  retry: { threats: number; assets: number };
  /** Steps GitHub refused for good: resolved, not retried (issue 6, item 2). */
  refused: Array<{ threatId: string; action: string; reason: string; at: string }>;
  /** Issues people deleted: those threats are no longer managed (issue 6, item 3). */
  deletedIssues: Array<{ threatId: string; issue: string }>;
}

export function summarize(state: State): StatusReport {
  const report: StatusReport = {
    cursors: { ...state.cursors },
    threats: { known: 0, mapped: 0, gone: 0 },
    issues: { open: 0, closed: 0, byRepository: {} },
    lastCycle: state.lastCycle,
    intents: Object.values(state.intents).map((i) => ({
      id: i.id,
      kind: i.kind,
      threatId: i.threatId,
      repo: i.repo,
      startedAt: i.startedAt,
    })),
    queue: queueSummary(state),
    retry: {
      threats: Object.keys(state.retry.threats).length,
      assets: Object.keys(state.retry.assets).length,
    },
    refused: [],
    deletedIssues: [],
  };
  for (const [threatId, record] of Object.entries(state.threats)) {
    if (record.refused) report.refused.push({ threatId, ...record.refused });
    if (record.deletedIssue) {
      report.deletedIssues.push({
        threatId,
        issue: `${record.deletedIssue.repo}#${record.deletedIssue.number}`,
      });
    }
    report.threats.known += 1;
    if (record.gone) report.threats.gone += 1;
    if (!record.issue) continue;
    report.threats.mapped += 1;
    report.issues[record.issue.state] += 1;
    report.issues.byRepository[record.issue.repo] = (report.issues.byRepository[record.issue.repo] ?? 0) + 1;
  }
  return report;
}

const short = (cursor: string | null): string => (cursor === null ? "(start)" : `${cursor.slice(0, 12)}…`);

export function formatStatus(report: StatusReport): string {
  const lines = [
    `cursors:    assets ${short(report.cursors.assets)}  threats ${short(report.cursors.threats)}`,
    `threats:    ${report.threats.known} known, ${report.threats.mapped} with an issue, ${report.threats.gone} of removed assets`,
    `issues:     ${report.issues.open} open, ${report.issues.closed} closed` +
      Object.entries(report.issues.byRepository)
        .map(([repo, n]) => `\n            ${repo}: ${n}`)
        .join(""),
    `last cycle: ${
      report.lastCycle
        ? `${report.lastCycle.finishedAt} ${report.lastCycle.ok ? "ok" : `failed: ${report.lastCycle.error ?? "some work failed"}`}`
        : "never"
    }`,
    `intents:    ${report.intents.length} unfinished` +
      report.intents
        .map((i) => `\n            ${i.id} ${i.kind} threat ${i.threatId} in ${i.repo} since ${i.startedAt}`)
        .join(""),
    `queue:      ${report.queue.total} due (${report.queue.failing} failing)` +
      `\n            by action:   ${formatCounts(report.queue.byAction)}` +
      `\n            by severity: ${formatCounts(report.queue.bySeverity)}`,
    `unreadable: ${report.retry.threats} threats, ${report.retry.assets} assets (read again each cycle)`,
    `refused:    ${report.refused.length} steps GitHub refused for good (not retried)` +
      report.refused
        .map((r) => `\n            threat ${r.threatId} ${r.action} at ${r.at}: ${r.reason}`)
        .join(""),
    `deleted:    ${report.deletedIssues.length} issues deleted by people (no longer managed)` +
      report.deletedIssues.map((d) => `\n            threat ${d.threatId} was ${d.issue}`).join(""),
  ];
  return lines.join("\n");
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? "-" : entries.map(([k, v]) => `${k} ${v}`).join(", ");
}
