import type { HandlerDeps } from "./deps.js";
import type { IssueRecord, MilestoneRecord, RepoRecord } from "./store.js";
import { issue as issueShape, type ApiIssue } from "./shapes.js";
import { issueType, milestone as milestoneShape, type ApiMilestone } from "./workflow-shapes.js";

/** Open and closed issues of a milestone, as its `open_issues` / `closed_issues` show them. */
export function milestoneCounts(r: RepoRecord, number: number): { open: number; closed: number } {
  let open = 0;
  let closed = 0;
  for (const i of r.issues) {
    if (i.milestone !== number || i.deleted || i.movedTo) continue;
    if (i.state === "open") open++;
    else closed++;
  }
  return { open, closed };
}

export function renderMilestone(deps: HandlerDeps, r: RepoRecord, m: MilestoneRecord): ApiMilestone {
  return milestoneShape(deps.shape, r, m, milestoneCounts(r, m.number));
}

/** The sub-issues of an issue that still exist (a deleted or transferred one leaves the list). */
export function subIssuesOf(deps: HandlerDeps, i: IssueRecord): Array<{ r: RepoRecord; issue: IssueRecord }> {
  const out: Array<{ r: RepoRecord; issue: IssueRecord }> = [];
  for (const id of i.subIssueIds ?? []) {
    const found = deps.store.issueById(id);
    if (found && !found.issue.deleted && !found.issue.movedTo) out.push(found);
  }
  return out;
}

/** An issue as GitHub answers it, with the newer features' fields where the repository has them. */
export function renderIssue(deps: HandlerDeps, r: RepoRecord, i: IssueRecord, single: boolean): ApiIssue {
  const out = issueShape(deps.shape, r, i, deps.store.commentsOf(r, i.number).length, { single });
  const m = i.milestone === undefined ? undefined : r.milestones?.[i.milestone - 1];
  if (m) out.milestone = renderMilestone(deps, r, m);
  if (deps.features.hasIssueTypes(r.owner)) {
    const t = deps.features.issueTypesOf(r.owner)?.find((x) => x.name === i.type);
    out.type = t ? issueType(t) : null;
  }
  if (deps.features.subIssuesIn(r.owner, r.name)) {
    const subs = subIssuesOf(deps, i);
    const completed = subs.filter((s) => s.issue.state === "closed").length;
    out.sub_issues_summary = {
      total: subs.length,
      completed,
      percent_completed: subs.length === 0 ? 0 : Math.floor((completed * 100) / subs.length),
    };
    const parent = i.parentId === undefined ? undefined : deps.store.issueById(i.parentId);
    out.parent_issue_url = parent
      ? `${deps.shape.baseUrl}/repos/${parent.r.owner}/${parent.r.name}/issues/${parent.issue.number}`
      : null;
  }
  return out;
}
