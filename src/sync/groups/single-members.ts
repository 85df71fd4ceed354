import type { IssueSnapshot } from "../../github/index.js";
import type { GroupIssue, GroupRecord } from "../schema.js";
import { nowIso, type SyncContext } from "../context.js";
import { enqueue } from "../records/queue.js";
import { putGroup, putThreat } from "../records/state-updates.js";
import { singleMade } from "../transitions/group.js";
import { personTargets, type SingleMemberView } from "./plan-single.js";

/** Single mode's members by repository, and its group issues' records (groups/plan-subject.ts). */

export function membersOf(ctx: SyncContext, group: GroupRecord): Map<string, SingleMemberView[]> {
  const byRepo = new Map<string, SingleMemberView[]>();
  for (const [threatId, m] of Object.entries(group.members)) {
    if (m.repo === undefined || m.status === undefined) continue;
    const asset = m.assetId ? ctx.state.assets[m.assetId] : undefined;
    const view: SingleMemberView = {
      threatId,
      title: m.title,
      severity: m.severity,
      asset: m.assetId ? (asset?.name ?? m.assetId) : null,
      status: m.status,
    };
    byRepo.set(m.repo, [...(byRepo.get(m.repo) ?? []), view]);
  }
  return byRepo;
}

function setIssue(
  ctx: SyncContext,
  groupId: string,
  repo: string,
  change: (i: GroupIssue | undefined) => GroupIssue,
): void {
  const group = ctx.state.groups?.[groupId];
  if (group)
    putGroup(ctx, groupId, { ...group, single: { ...group.single, [repo]: change(group.single?.[repo]) } });
}

/** The issue was made (or found again): its members are queued for their links. */
export function recordCreated(
  ctx: SyncContext,
  groupId: string,
  repo: string,
  issue: IssueSnapshot,
  hash: string,
  state: "open" | "closed" = "open",
): void {
  setIssue(ctx, groupId, repo, () => singleMade(issue, hash, state));
  queueMembers(ctx, groupId, repo);
}

/** A group's issue in `repo` was made: its members there are queued for their links. */
export function queueMembers(ctx: SyncContext, groupId: string, repo: string): void {
  const group = ctx.state.groups?.[groupId];
  for (const [threatId, m] of Object.entries(group?.members ?? {})) {
    if (m.repo !== repo) continue;
    // A member without an issue of its own is not stored: the drain reads it and plans its link.
    if (!ctx.state.threats.get(threatId)) {
      const record = {
        status: m.status ?? "unsolved",
        severity: m.severity,
        assetId: m.assetId ?? null,
        updatedAt: "",
      };
      putThreat(ctx, threatId, record, undefined);
    }
    enqueue(ctx, threatId, {}, nowIso(ctx));
  }
}

/** A group's issue in a state the connector did not write: a person's change, recorded as its members' verdicts. */
export function noteSingleIssueSeen(ctx: SyncContext, issue: IssueSnapshot): boolean {
  // Under any setting: an old setting's issue is absorbed under it until retired.
  const groupId = singleIssueGroup(ctx, issue.repo, issue.number);
  const group = groupId === null ? undefined : ctx.state.groups?.[groupId];
  const known = group?.single?.[issue.repo];
  if (groupId === null || !group || !known) return false;
  if (known.person || known.state === issue.state) return false;
  const event = issue.state === "closed" ? "closed" : "reopened";
  const members = membersOf(ctx, group).get(issue.repo) ?? [];
  const targets = personTargets(event, members, known.closedByPerson);
  setIssue(ctx, groupId, issue.repo, (i) => ({
    ...(i as GroupIssue),
    person: {
      event,
      reason: issue.stateReason === "reopened" ? null : issue.stateReason,
      login: issue.closedBy ?? "a person",
      seenAt: nowIso(ctx),
      pending: targets,
      targets,
    },
  }));
  // The group's subject carries the verdicts to its members (run/drain.ts).
  enqueue(ctx, groupId, {}, nowIso(ctx));
  ctx.emit({
    type: "person_changed",
    threatId: groupId,
    issue: { repo: issue.repo, number: issue.number },
    state: issue.state,
  });
  return true;
}

/** The group whose unretired single-mode issue `repo#number` is, or null. */
export function singleIssueGroup(ctx: SyncContext, repo: string, number: number): string | null {
  for (const [groupId, group] of Object.entries(ctx.state.groups ?? {})) {
    const known = group.single?.[repo];
    if (known?.number === number && known.retired === undefined) return groupId;
  }
  return null;
}
