import type { PlatformClient, StreamPage, Threat } from "../platform/index.js";
import { ACTION_KINDS, type DryRunRecord, type DryRunSink, type DryRunSummary } from "../sync/index.js";
import {
  budgetText,
  drainSeconds,
  formatCount,
  formatEta,
  limitsOnly,
  type BudgetLimits,
} from "../observability/index.js";
import { fit, terminalText } from "./terminal-text.js";

/**
 * `sync --dry-run` as a plan a person can read: a header with what was read, a table of
 * every action, totals per action, what gets no issue and why, and the adoptions. `--json` keeps the
 * contract's one object per action per line.
 */

/**
 * Collects the engine's records, so that the header (what was read) can come first, and counts the
 * GitHub writes among them by action (the plan's time at the write budget).
 */
export function collectingSink(): DryRunSink & {
  records: DryRunRecord[];
  githubWrites: Map<string, number>;
} {
  const records: DryRunRecord[] = [];
  const githubWrites = new Map<string, number>();
  return {
    records,
    githubWrites,
    print(line, githubWrite) {
      records.push(line);
      if (githubWrite === true) githubWrites.set(line.action, (githubWrites.get(line.action) ?? 0) + 1);
    },
  };
}

/** What the plan's GitHub writes take at the configured write budget, from nothing spent. */
export interface PlanTime {
  githubWrites: ReadonlyMap<string, number>;
  budget: BudgetLimits;
}

const plural = (n: number, word: string): string =>
  `${formatCount(n)} ${n === 1 ? word : /(s|sh|ch|x)$/.test(word) ? `${word}es` : `${word}s`}`;

/**
 * "4,015 creates: about 8 h 2 min at 80/min, 500/h" (several kinds: "4,030 GitHub writes (create
 * 4,015, comment 15): …"). Only GitHub's writes: the platform's are not paced by the write budget.
 */
export function planTimeText(time: PlanTime): string {
  const kinds = [...time.githubWrites].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  const total = kinds.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return "no GitHub writes: the write budget does not bind";
  const [only] = kinds;
  const what =
    kinds.length === 1 && only !== undefined
      ? plural(only[1], only[0])
      : `${formatCount(total)} GitHub writes (${kinds.map(([a, n]) => `${a} ${formatCount(n)}`).join(", ")})`;
  const seconds = drainSeconds(total, limitsOnly(time.budget), 0);
  return `${what}: ${seconds === null ? formatEta(total, null) : `${formatEta(total, seconds)} at ${budgetText(time.budget)}`}`;
}

async function* tap(
  pages: AsyncIterable<StreamPage<Threat>>,
  seen: Map<string, Threat>,
): AsyncGenerator<StreamPage<Threat>> {
  for await (const page of pages) {
    for (const item of page.items) if (item.ok) seen.set(item.value.id, item.value);
    yield page;
  }
}

/**
 * The platform client, noting every threat the stream delivers (the last version of each wins).
 * The plan counts what gets no issue among all of them, so the dry run parses every item: the
 * engine's test for re-deliveries it already holds is not passed on.
 */
export function tapThreats(platform: PlatformClient, seen: Map<string, Threat>): PlatformClient {
  return { ...platform, streamThreats: (cursor) => tap(platform.streamThreats(cursor), seen) };
}

// A group's parent and its attachments (grouping) come after the threats' own actions; an update
// that closes or reopens an issue is listed as `close` or `reopen` (its audit action), before content.
const ORDER: readonly string[] = [
  ...ACTION_KINDS.flatMap((kind) => (kind === "update" ? ["close", "reopen", kind] : [kind])),
  "group",
  "attach",
  "error",
];
/** A plug-in feature's write (`note`, `sla_milestone`) ranks where the one core kind `feature` does. */
const rank = (action: string): number => {
  const at = ORDER.indexOf(action);
  return at >= 0 ? at : ORDER.indexOf("feature");
};
const STATUS_WORDS: Record<string, string> = { false_positive: "false positive" };

function where(r: DryRunRecord): string {
  if (r.repository === undefined) return "";
  return r.issue !== undefined ? `${r.repository}#${r.issue}` : `${r.repository} (new)`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => [...(row[col] ?? "")].length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

export function formatPlan(
  records: DryRunRecord[],
  summary: DryRunSummary,
  time: PlanTime,
  error?: string,
): string {
  const all = [...summary.adopted, ...records];
  const r = summary.read;
  const lines = [
    "dry run: nothing is written to GitHub, the platform or the state file",
    `read: ${r.assets} assets, ${r.threats} threats, ${r.githubIssues} changed issues on GitHub (${r.peopleChanges} closed or reopened by people)`,
    "",
  ];
  if (all.length === 0) lines.push("nothing to do");
  else {
    const rows = all.map((x) => [
      x.action,
      x.severity ?? "-",
      x.threat_id,
      fit(terminalText(x.title ?? "-"), 48),
      where(x) || "-",
      x.labels && x.labels.length > 0 ? x.labels.map(terminalText).join(",") : "-",
      [
        x.assignees?.map(terminalText).join(",") || "-",
        x.detail ? ` ${terminalText(x.detail)}` : "",
        x.route ? ` (${terminalText(x.route)})` : "",
      ].join(""),
    ]);
    lines.push(
      ...table([["ACTION", "SEVERITY", "THREAT", "TITLE", "ISSUE", "LABELS", "ASSIGNEES"], ...rows]),
    );
  }
  const totals = new Map<string, number>();
  for (const x of all) totals.set(x.action, (totals.get(x.action) ?? 0) + 1);
  const ordered = [...totals].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
  lines.push(
    "",
    `totals: ${ordered.length === 0 ? "none" : ordered.map(([a, n]) => `${a} ${n}`).join(", ")}`,
  );
  if (all.length > 0) lines.push(`time at the write budget: ${planTimeText(time)}`);
  const n = summary.noIssue;
  const statuses = Object.entries(n.status);
  const firstSeen = statuses.reduce((sum, [, k]) => sum + k, 0);
  lines.push(
    `no issue: ${firstSeen} first seen solved or closed${statuses.length === 0 ? "" : ` (${statuses.map(([s, k]) => `${STATUS_WORDS[s] ?? s} ${k}`).join(", ")})`}` +
      `; ${n.min_severity} below min_severity; ${n.module} filtered by module; ${n.asset_type} filtered by asset type`,
  );
  if (error !== undefined) lines.push(`error: ${error} (the plan above is incomplete)`);
  return lines.join("\n");
}
