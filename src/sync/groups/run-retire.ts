import { isPermanentRefusal } from "../../github/index.js";
import type { GroupIssue, GroupParent, GroupRecord } from "../../state/index.js";
import { checkpoint, persist, type SyncContext } from "../context.js";
import { singleMembership } from "../records/group-members.js";
import { putGroup } from "../records/state-updates.js";
import { runAction } from "../run/run-action.js";
import { groupRetired } from "../transitions/group.js";
import { printRetireAction, printSingleAction } from "./dry-run-groups.js";
import { groupRuntime, memberIndex } from "./membership.js";
import { isOpenOnPlatform, planPerson, type SingleAction } from "./plan-single.js";
import { planRetire, type RetireAction } from "./retire-plan.js";
import { membersOf } from "./single-members.js";
import { supersededGroups } from "./supersede.js";

/**
 * The superseded groups' pass (contract, "Changing grouping"; groups/supersede.ts): a person's
 * change of a single-mode issue made under the old setting sends its members' verdicts under that
 * setting first; then each old parent and group issue is retired (retire-plan.ts) once the issues
 * that carry its members under the new setting exist. Every write goes through the one runner,
 * within the write budget and the deadline, as the other group writes do.
 */

type OldAction = SingleAction | RetireAction;

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

/**
 * The issue that carries a member now: its own issue, or its group's issue under the new single
 * mode; "wait" while it is due one (queued, or its new group's issue not made yet); null when it
 * needs none (not open, not eligible).
 */
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

/**
 * Every superseded group's next steps, from the state alone. `personOnly`: only people's changes
 * (at the start of a cycle, before the new setting plans anything); `eager`: a dry run, which
 * shows the retirements to come without waiting for the members' new issues.
 */
export function planOld(ctx: SyncContext, opts: { personOnly?: boolean; eager?: boolean } = {}): OldAction[] {
  const actions: OldAction[] = [];
  const runtime = groupRuntime(ctx);
  for (const [groupId, group] of supersededGroups(ctx)) {
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
  }
  return actions;
}

/** Whether a superseded group still has an issue to absorb a person's change of, or to retire. */
export function hasOldWork(ctx: SyncContext): boolean {
  return supersededGroups(ctx).some(([, g]) =>
    [...Object.values(g.parents), ...Object.values(g.single ?? {})].some(
      (i) => i.retired !== "noted" && i.refused === undefined,
    ),
  );
}

/** Whether an old single-mode issue may still show a person's change to absorb (not retired yet). */
export function hasOldSingles(ctx: SyncContext): boolean {
  return supersededGroups(ctx).some(([, g]) =>
    Object.values(g.single ?? {}).some((i) => i.retired === undefined && i.refused === undefined),
  );
}

/** GitHub refused the issue for good (deleted, locked, archived): it is left as it is. */
function refused(ctx: SyncContext, action: RetireAction, error: unknown): void {
  const group = ctx.state.groups?.[action.groupId];
  if (group) putGroup(ctx, action.groupId, groupRetired(group, action.issueKind, action.repo, "noted"));
  ctx.logger.warn(
    {
      group: action.groupId,
      issue: `${action.repo}#${action.number}`,
      err: (error instanceof Error ? error.message : String(error)).slice(0, 200),
    },
    "GitHub refused to retire a group's issue for good; it is left as it is",
  );
}

/**
 * Carries out the superseded groups' steps: verdicts first, then closes, then comments (each
 * round planned again from the state, so a comment follows its close in the same pass). A dry
 * run prints them instead. Answers how many actions it planned.
 */
export async function syncOld(
  ctx: SyncContext,
  stop: () => boolean,
  opts: { personOnly?: boolean } = {},
): Promise<number> {
  if (ctx.dryRun) {
    const actions = planOld(ctx, { ...opts, eager: true });
    for (const a of actions) {
      if (a.kind === "group_retire" || a.kind === "group_retire_note") printRetireAction(ctx.dryRun, a);
      else printSingleAction(ctx.dryRun, a);
    }
    return actions.length;
  }
  let planned = 0;
  let failed = false;
  // Three rounds at most (verdicts, closes, comments); one that failed waits for the next pass.
  for (let round = 0; round < 3 && !failed; round++) {
    const actions = planOld(ctx, opts);
    if (actions.length === 0) break;
    planned += actions.length;
    for (const action of actions) {
      if (stop()) return planned;
      try {
        await runAction(ctx, action);
      } catch (error) {
        if (
          isPermanentRefusal(error) &&
          (action.kind === "group_retire" || action.kind === "group_retire_note")
        ) {
          refused(ctx, action, error);
        } else {
          failed = true;
          ctx.logger.warn(
            {
              group: action.groupId,
              action: action.kind,
              err: error instanceof Error ? error.message : String(error),
            },
            "a retired group's step failed; it is planned again next cycle",
          );
          // The verdicts of a person's change go in order; the rest waits for the next pass.
          if (action.kind === "single_verdict") return planned;
        }
      }
      await checkpoint(ctx);
    }
  }
  await persist(ctx);
  return planned;
}
