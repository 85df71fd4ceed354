import { DEFAULT_MIN_MEMBERS } from "../../config/index.js";
import { isPermanentRefusal } from "../../github/index.js";
import type { GroupRecord } from "../../state/index.js";
import { checkpoint, persist, type SyncContext } from "../context.js";
import { adoptExisting, allowedAfter } from "./adopt-existing.js";
import { changeParent, parentOf } from "./parent-state.js";
import { groupRuntime } from "./membership.js";
import { isAttachWork, planGroup, SUB_ISSUES_MAX, type GroupAction } from "./plan-groups.js";
import type { MemberView } from "./render-parent.js";
import { dueDateOf } from "../features/sla/due-date.js";
import { printGroupAction, printSingleAction } from "./dry-run-groups.js";
import { planSingles, syncSingles } from "./run-single.js";
import { runAction } from "../run/run-action.js";
import { attachedToOldParents, currentGroups } from "./supersede.js";
import { markerHeld } from "./change-grouping.js";
import { hasOldWork, syncOld } from "./run-retire.js";

/**
 * The per-cycle group pass (grouping `parent` mode): every group's plan is made from the state
 * alone (no read per issue), and carried out within the write budget: parents' creates, updates
 * and state changes first, then the lowest priority, members' ids and attaches. Each is a plain
 * action carried out by the one runner (run/run-action.ts) through its module
 * (actions/group-parent.ts, actions/group-attach.ts); a parent's create goes out under a
 * write-ahead intent resolved by its marker, as a threat's issue's does, so a group never gets a
 * second parent whatever crashes. A dry run prints the plan instead.
 */

export interface GroupPassOptions {
  deadline?: number;
  signal?: AbortSignal;
}

/** The members of a group with an issue, by repository (groups are per repository). */
function membersByRepo(ctx: SyncContext, group: GroupRecord): Map<string, MemberView[]> {
  const byRepo = new Map<string, MemberView[]>();
  for (const [threatId, member] of Object.entries(group.members)) {
    const record = ctx.state.threats.get(threatId);
    const issue = record?.issue;
    if (!record || !issue) continue;
    const view: MemberView = {
      threatId,
      title: member.title,
      severity: member.severity,
      repo: issue.repo,
      number: issue.number,
      id: issue.id ?? null,
      state: issue.state,
      due: dueDateOf(record),
    };
    const list = byRepo.get(issue.repo);
    if (list) list.push(view);
    else byRepo.set(issue.repo, [view]);
  }
  return byRepo;
}

/** Every group's plan, from the state as it is now. */
export function planGroups(ctx: SyncContext): GroupAction[] {
  const grouping = ctx.config.grouping;
  if (grouping === undefined || grouping.mode !== "parent") return [];
  const runtime = groupRuntime(ctx);
  const actions: GroupAction[] = [];
  const noSubIssues = reposWithoutSubIssues(ctx);
  const underOldParent = attachedToOldParents(ctx);
  for (const [groupId, group] of currentGroups(ctx)) {
    const byRepo = membersByRepo(ctx, group);
    const repos = new Set([...byRepo.keys(), ...Object.keys(group.parents)]);
    for (const repo of repos) {
      actions.push(
        ...planGroup({
          groupId,
          repo,
          by: group.by,
          key: group.key,
          name: group.by === "asset" ? (ctx.state.assets[group.key]?.name ?? null) : null,
          members: byRepo.get(repo) ?? [],
          parent: group.parents[repo],
          minMembers: grouping.min_members ?? DEFAULT_MIN_MEMBERS,
          managedLabel: ctx.policy.managedLabel,
          title: runtime.title,
          subIssues: ctx.workflow !== undefined && !noSubIssues.has(repo),
          underOldParent,
        }),
      );
    }
  }
  return actions;
}

/**
 * Repositories where GitHub answered that sub-issues are not available (a parent there is marked
 * so): their other parents keep the checklist alone too, without asking again.
 */
function reposWithoutSubIssues(ctx: SyncContext): Set<string> {
  const repos = new Set<string>();
  for (const group of Object.values(ctx.state.groups ?? {})) {
    for (const [repo, parent] of Object.entries(group.parents)) {
      if (parent.checklistOnly === "unavailable") repos.add(repo);
    }
  }
  return repos;
}

/** Whether an attach planned earlier in the pass is still wanted (its parent may have changed since). */
function stillAttaching(ctx: SyncContext, action: GroupAction): boolean {
  if (action.kind !== "attach" && action.kind !== "member_id") return true;
  const parent = parentOf(ctx, action.groupId, action.repo);
  if (!parent || parent.refused !== undefined || parent.checklistOnly !== undefined) return false;
  return !groupRuntime(ctx).said.has(`unavailable:${action.repo}`);
}

/** A group's new issue waits while an old setting's issue of the same marker is not retired. */
function waitsForRetirement(ctx: SyncContext, action: GroupAction): boolean {
  return action.kind === "group_create" && markerHeld(ctx, action.groupId, action.repo);
}

/** Whether the pass must stop: a stop, or the deadline before the next write could go out. */
function mustStop(ctx: SyncContext, opts: GroupPassOptions): boolean {
  if (opts.signal?.aborted) return true;
  if (opts.deadline === undefined) return false;
  return ctx.clock.now() >= opts.deadline || ctx.github.budget.nextSlotAt() > opts.deadline;
}

async function runAll(
  ctx: SyncContext,
  actions: readonly GroupAction[],
  opts: GroupPassOptions,
): Promise<boolean> {
  for (const action of actions) {
    if (mustStop(ctx, opts)) return false;
    if (!stillAttaching(ctx, action)) continue;
    try {
      await runAction(ctx, action);
    } catch (error) {
      if (isPermanentRefusal(error) && "number" in action && action.kind !== "member_id") {
        changeParent(ctx, action.groupId, action.repo, (p) => ({ ...p, refused: refusalOf(error) }));
        ctx.logger.warn(
          { group: action.groupId, issue: `${action.repo}#${action.number}`, err: error },
          "GitHub refused a group's parent issue for good; it is written no more",
        );
      } else {
        ctx.logger.warn(
          {
            group: action.groupId,
            action: action.kind,
            err: error,
          },
          "a group's write failed; it is planned again next cycle",
        );
      }
    }
    // These writes are idempotent or resolved by reading (a repeated attach is "already
    // attached", a repeated verdict finds the platform agreeing): batched into checkpoints.
    await checkpoint(ctx);
  }
  return true;
}

function refusalOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** The group pass of one cycle; answers how many actions it planned. */
export async function syncGroups(ctx: SyncContext, opts: GroupPassOptions = {}): Promise<number> {
  // The old setting's groups first (a changed `grouping`): their issues retired before a new
  // group issue of the same marker is made.
  const old = hasOldWork(ctx) ? await syncOld(ctx, () => mustStop(ctx, opts)) : 0;
  return old + (await syncCurrent(ctx, opts));
}

async function syncCurrent(ctx: SyncContext, opts: GroupPassOptions): Promise<number> {
  if (ctx.config.grouping?.mode === "single") {
    if (ctx.dryRun) {
      const actions = planSingles(ctx);
      for (const action of actions) printSingleAction(ctx.dryRun, action);
      return actions.length;
    }
    return syncSingles(ctx, () => mustStop(ctx, opts));
  }
  if (ctx.config.grouping?.mode !== "parent") return 0;
  if (ctx.dryRun) {
    // The plan as it stands: parents to create or update, then what would be attached to the
    // parents that exist (those created by this plan get theirs on the next cycle).
    let printed = 0;
    for (const action of planGroups(ctx)) {
      printGroupAction(ctx.dryRun, action);
      printed += 1;
      if (action.kind !== "group_create" || !ctx.workflow) continue;
      // What the new parent would get: its members attached (GitHub's 100 at most).
      const group = ctx.state.groups?.[action.groupId];
      const members = group ? (membersByRepo(ctx, group).get(action.repo) ?? []) : [];
      for (const m of members.slice(0, SUB_ISSUES_MAX)) {
        ctx.dryRun.print({
          action: "attach",
          threat_id: m.threatId,
          repository: m.repo,
          issue: m.number,
          detail: `to the new parent of ${action.groupId}`,
        });
        printed += 1;
      }
    }
    return printed;
  }
  let first = planGroups(ctx).filter((a) => !isAttachWork(a) && !waitsForRetirement(ctx, a));
  // A parent found on GitHub is taken over before any create goes out (a lost state).
  const adoption = await adoptExisting(
    ctx,
    first.filter((a) => a.kind === "group_create"),
  );
  if (adoption.adopted > 0)
    first = planGroups(ctx).filter((a) => !isAttachWork(a) && !waitsForRetirement(ctx, a));
  first = first.filter((a) => allowedAfter(adoption, a));
  let planned = first.length;
  if (await runAll(ctx, first, opts)) {
    // The parents as they are now (some just created): ids read, members attached, lowest priority.
    const rest = planGroups(ctx).filter(isAttachWork);
    planned += rest.length;
    // Members whose ids were just read are attached in the same pass.
    if ((await runAll(ctx, rest, opts)) && rest.some((a) => a.kind === "member_id")) {
      await runAll(
        ctx,
        planGroups(ctx).filter((a) => a.kind === "attach"),
        opts,
      );
    }
  }
  await persist(ctx);
  return planned;
}
