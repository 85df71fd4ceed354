import type { GroupIssue, GroupParent, GroupRecord } from "../schema.js";
import type { SyncContext } from "../context.js";
import { singleMembership } from "../records/group-members.js";
import { groupRuntime, memberIndex } from "./membership.js";
import { isOpenOnPlatform, planPerson, type SingleAction } from "./plan-single.js";
import { planRetire, type RetireAction } from "./retire-plan.js";
import { membersOf } from "./single-members.js";
import { supersededGroups } from "./supersede.js";

/**
 * A superseded group's plan (contract, "Changing grouping"): people's changes under the old setting
 * first, then each old issue retired once the issues carrying its members under the new setting exist.
 */

export type OldAction = SingleAction | RetireAction;

/** An issue of a superseded group: a parent, or single mode's one issue, in one repository. */
type OldIssue =
  | { issueKind: "parent"; repo: string; issue: GroupParent }
  | { issueKind: "single"; repo: string; issue: GroupIssue };

function setting(by: string, mode: string): string {
  return `\`by: ${by}, mode: ${mode}\``;
}

function nowSetting(ctx: SyncContext): string {
  const grouping = ctx.config.grouping;
  return grouping ? setting(grouping.by, grouping.mode ?? "parent") : "off (no `grouping`)";
}

/** The issue carrying a member now, "wait" while one is due it, or null when it needs none. */
function carrierOf(ctx: SyncContext, threatId: string): string | null | "wait" {
  const own = ctx.state.threats.get(threatId)?.issue;
  if (own) return `${own.repo}#${own.number}`;
  const single = singleMembership(ctx.state.groups, memberIndex(ctx), threatId);
  if (single?.issue) return `${single.issue.repo}#${single.issue.number}`;
  if (ctx.state.queue[threatId] !== undefined) return "wait";
  const status = single ? ctx.state.groups?.[single.groupId]?.members[threatId]?.status : undefined;
  return status !== undefined && isOpenOnPlatform(status) ? "wait" : null;
}

/** The issues carrying the members of an old issue in `repo`, or null while one waits for its own. */
function carriers(
  ctx: SyncContext,
  group: GroupRecord,
  issueKind: "parent" | "single",
  repo: string,
): string[] | null {
  const ids =
    issueKind === "single"
      ? Object.entries(group.members).flatMap(([id, m]) => (m.repo === repo ? [id] : []))
      : Object.keys(group.members).filter((id) => ctx.state.threats.get(id)?.issue?.repo === repo);
  const found: string[] = [];
  for (const id of ids) {
    const carrier = carrierOf(ctx, id);
    if (carrier === "wait") return null;
    if (carrier !== null) found.push(carrier);
  }
  return found;
}

function commenting(ctx: SyncContext, groupId: string, number: number): boolean {
  return Object.values(ctx.state.intents).some(
    (i) => i.kind === "comment" && i.threatId === groupId && i.number === number,
  );
}

/** A superseded group's next steps; `personOnly`: people's changes only; `eager`: a dry run's preview. */
export function planOld(
  ctx: SyncContext,
  groupId: string,
  group: GroupRecord,
  opts: { personOnly?: boolean; eager?: boolean } = {},
): OldAction[] {
  const actions: OldAction[] = [];
  const runtime = groupRuntime(ctx);
  const was = setting(group.by, group.mode ?? "parent");
  const issues: OldIssue[] = [
    ...Object.entries(group.parents).map(([repo, issue]) => ({
      issueKind: "parent" as const,
      repo,
      issue,
    })),
    ...Object.entries(group.single ?? {}).map(([repo, issue]) => ({
      issueKind: "single" as const,
      repo,
      issue,
    })),
  ];
  for (const old of issues) {
    const { issueKind, repo, issue } = old;
    // Written no more: retired and commented, or refused by GitHub for good.
    if (issue.retired === "noted" || issue.refused !== undefined) continue;
    if (old.issueKind === "single" && old.issue.person && old.issue.retired === undefined) {
      actions.push(
        ...planPerson(
          {
            groupId,
            repo,
            by: group.by,
            key: group.key,
            members: membersOf(ctx, group).get(repo) ?? [],
            issue: old.issue,
            managedLabel: ctx.policy.managedLabel,
            title: runtime.title,
            policy: ctx.policy,
          },
          old.issue,
        ),
      );
      continue;
    }
    if (opts.personOnly || commenting(ctx, groupId, issue.number)) continue;
    const found = carriers(ctx, group, issueKind, repo);
    actions.push(
      ...planRetire({
        groupId,
        repo,
        number: issue.number,
        issueKind,
        retired: issue.retired,
        refused: issue.refused !== undefined,
        personPending: old.issueKind === "single" && old.issue.person !== undefined,
        carriers: found === null && opts.eager ? [] : found,
        was,
        now: nowSetting(ctx),
      }),
    );
  }
  return actions;
}

/** Whether an old single-mode issue may still show a person's change to absorb (not retired yet). */
export function hasOldSingles(ctx: SyncContext): boolean {
  return supersededGroups(ctx).some(([, g]) =>
    Object.values(g.single ?? {}).some((i) => i.retired === undefined && i.refused === undefined),
  );
}
