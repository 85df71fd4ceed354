import type { components } from "@octokit/openapi-types";
import type { IssueTypeRecord } from "./features.js";
import type { MilestoneRecord, RepoRecord } from "./store.js";
import { isoSeconds, user, type ShapeContext } from "./shapes.js";

export type ApiMilestone = components["schemas"]["milestone"];
type ApiIssueType = NonNullable<components["schemas"]["issue-type"]>;

const PACIFIC = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Los_Angeles",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  hourCycle: "h23",
});

function pacificParts(ms: number): { date: string; hour: number } {
  const parts = Object.fromEntries(PACIFIC.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { date: `${parts["year"]}-${parts["month"]}-${parts["day"]}`, hour: Number(parts["hour"]) };
}

/** GitHub keeps a milestone's `due_on` as a US Pacific date, answered as Pacific midnight of that date. */
export function pacificDateOf(ms: number): string {
  return pacificParts(ms).date;
}

/** Midnight US Pacific time of a calendar date, as GitHub answers `due_on` (07:00Z or 08:00Z). */
function pacificMidnight(date: string): string {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  // PST is UTC-8, PDT UTC-7: 08:00Z is midnight in winter and 01:00 in summer.
  const candidate = utcMidnight + 8 * 3_600_000;
  const ms = pacificParts(candidate).hour === 0 ? candidate : candidate - 3_600_000;
  return isoSeconds(ms);
}

export function milestone(
  ctx: ShapeContext,
  r: RepoRecord,
  m: MilestoneRecord,
  counts: { open: number; closed: number },
): ApiMilestone {
  const url = `${ctx.baseUrl}/repos/${r.owner}/${r.name}/milestones/${m.number}`;
  return {
    url,
    html_url: `${ctx.baseUrl}/${r.owner}/${r.name}/milestone/${m.number}`,
    labels_url: `${url}/labels`,
    id: m.id,
    node_id: Buffer.from(`Milestone${m.id}`).toString("base64"),
    number: m.number,
    state: m.state,
    title: m.title,
    description: m.description,
    creator: user(ctx, m.creator),
    open_issues: counts.open,
    closed_issues: counts.closed,
    created_at: isoSeconds(m.createdAt),
    updated_at: isoSeconds(m.updatedAt),
    closed_at: m.closedAt === null ? null : isoSeconds(m.closedAt),
    due_on: m.dueDate === null ? null : pacificMidnight(m.dueDate),
  };
}

export function issueType(t: IssueTypeRecord): ApiIssueType {
  return {
    id: t.id,
    node_id: Buffer.from(`IssueType${t.id}`).toString("base64"),
    name: t.name,
    description: null,
    color: null,
    created_at: isoSeconds(0),
    updated_at: isoSeconds(0),
    is_enabled: true,
  };
}
