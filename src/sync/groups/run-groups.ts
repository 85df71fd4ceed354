import { DEFAULT_MIN_MEMBERS } from "../../config/index.js";
import { isPermanentRefusal } from "../../github/index.js";
import { groupMarkerFor, withRevision } from "../../shared/index.js";
import type { GroupParent, GroupRecord, Intent } from "../../state/index.js";
import { persist, type SyncContext } from "../context.js";
import { putGroup, updateThreat } from "../records/state-updates.js";
import { withIntent } from "../run/intents.js";
import { groupRuntime } from "./membership.js";
import { isAttachWork, planGroup, SUB_ISSUES_MAX, type GroupAction } from "./plan-groups.js";
import type { MemberView } from "./render-parent.js";
import { dueDateOf } from "./sla-hook.js";
import { printGroupAction, printSingleAction } from "./dry-run-groups.js";
import { planSingles, resolveSingleCreate, syncSingles } from "./run-single.js";

/**
 * The per-cycle group pass (grouping `parent` mode): every group's plan is made from the state
 * alone (no read per issue), and carried out within the write budget: parents' creates, updates
 * and state changes first, then the lowest priority, members' ids and attaches. A parent's create
 * goes out under a write-ahead intent resolved by its marker, as a threat's issue's does, so a
 * group never gets a second parent whatever crashes. A dry run prints the plan instead.
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
  for (const [groupId, group] of Object.entries(ctx.state.groups ?? {})) {
    const byRepo = membersByRepo(ctx, group);
    const repos = new Set([...byRepo.keys(), ...Object.keys(group.parents)]);
    for (const repo of repos) {
      actions.push(
        ...planGroup({
          groupId,
          repo,
          by: group.by,
          key: group.key,
          members: byRepo.get(repo) ?? [],
          parent: group.parents[repo],
          minMembers: grouping.min_members ?? DEFAULT_MIN_MEMBERS,
          managedLabel: ctx.policy.managedLabel,
          title: runtime.title,
          subIssues: ctx.workflow !== undefined && !noSubIssues.has(repo),
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

function parentOf(ctx: SyncContext, groupId: string, repo: string): GroupParent | undefined {
  return ctx.state.groups?.[groupId]?.parents[repo];
}

function setParent(ctx: SyncContext, groupId: string, repo: string, parent: GroupParent): void {
  const group = ctx.state.groups?.[groupId];
  if (group) putGroup(ctx, groupId, { ...group, parents: { ...group.parents, [repo]: parent } });
}

function changeParent(
  ctx: SyncContext,
  groupId: string,
  repo: string,
  change: (parent: GroupParent) => GroupParent,
): void {
  const parent = parentOf(ctx, groupId, repo);
  if (parent) setParent(ctx, groupId, repo, change(parent));
}

/** Logs a fact once per process (a repository without sub-issues, a full parent). */
function sayOnce(ctx: SyncContext, key: string, fields: object, message: string): void {
  const runtime = groupRuntime(ctx);
  if (runtime.said.has(key)) return;
  runtime.said.add(key);
  ctx.logger.warn(fields, message);
}

function markerOf(ctx: SyncContext, groupId: string): string | null {
  const group = ctx.state.groups?.[groupId];
  return group ? groupMarkerFor(group.by, group.key) : null;
}

/**
 * A parent's create whose answer was lost (or a crash after it was sent): its issue is looked for
 * by the group's marker, never sent again before that. Answers whether it was found.
 */
export async function resolveGroupCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  if (ctx.config.grouping?.mode === "single") return resolveSingleCreate(ctx, intent);
  const marker = markerOf(ctx, intent.threatId);
  if (marker === null || !ctx.workflow) return false;
  const since = new Date(Date.parse(intent.startedAt) - 5 * 60_000).toISOString();
  const issue = await ctx.workflow.findGroupParent(intent.repo, marker, since);
  if (!issue) return false;
  if (parentOf(ctx, intent.threatId, intent.repo) === undefined) {
    setParent(ctx, intent.threatId, intent.repo, {
      number: issue.number,
      ...(issue.id !== null ? { id: issue.id } : {}),
      url: issue.url,
      state: "open",
      // Unknown content: the next pass writes the checklist as it is then.
      hash: "",
      attached: [],
    });
  }
  ctx.emit({ type: "intent_found", threatId: intent.threatId, intentId: intent.id });
  return true;
}

async function create(ctx: SyncContext, a: Extract<GroupAction, { kind: "group_create" }>): Promise<void> {
  await withIntent(
    ctx,
    { kind: "group_create", threatId: a.groupId, repo: a.repo },
    async () => {
      const issue = await ctx.github.createIssue(a.repo, {
        title: a.title,
        body: withRevision(a.body, a.hash),
        labels: a.labels,
        assignees: [],
      });
      setParent(ctx, a.groupId, a.repo, {
        number: issue.number,
        ...(issue.id !== null ? { id: issue.id } : {}),
        url: issue.url,
        state: "open",
        hash: a.hash,
        attached: [],
      });
      ctx.emit({
        type: "group_written",
        threatId: a.groupId,
        issue: { repo: issue.repo, number: issue.number },
        detail: "create",
      });
    },
    { resolve: (intent) => resolveGroupCreate(ctx, intent) },
  );
}

async function attach(ctx: SyncContext, a: Extract<GroupAction, { kind: "attach" }>): Promise<void> {
  const workflow = ctx.workflow;
  if (!workflow) return;
  const result = await workflow.addSubIssue(a.repo, a.parentNumber, a.childId);
  if (!result.available) {
    // GitHub answers 404 alike for a repository without sub-issues and for a deleted parent.
    if ((await ctx.github.getIssue(a.repo, a.parentNumber)) === null) {
      changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, refused: "deleted" }));
      return;
    }
    changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, checklistOnly: "unavailable" }));
    sayOnce(
      ctx,
      `unavailable:${a.repo}`,
      { repo: a.repo, status: result.status, message: result.message },
      "this repository has no sub-issues; its groups' parents list their members in the checklist only",
    );
    return;
  }
  if (result.outcome === "parent_full") {
    changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, checklistOnly: "full" }));
    sayOnce(
      ctx,
      `full:${a.groupId}:${a.repo}`,
      { group: a.groupId, parent: `${a.repo}#${a.parentNumber}` },
      "a parent holds GitHub's 100 sub-issues; further members are in its checklist only",
    );
    return;
  }
  if (result.outcome === "has_other_parent" || result.outcome === "refused") {
    // A person put the issue under another parent, or GitHub refuses it: it is left as it is.
    ctx.logger.info(
      { group: a.groupId, issue: `${a.repo}#${a.childNumber}`, message: result.message },
      "a member was not attached to its group's parent; it stays in the checklist",
    );
  }
  changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, attached: [...p.attached, a.threatId] }));
  if (result.outcome === "attached") {
    ctx.emit({
      type: "attached",
      threatId: a.threatId,
      issue: { repo: a.repo, number: a.parentNumber },
      detail: `${a.repo}#${a.childNumber}`,
    });
  }
}

/** Carries out one group action (a write or the one read of a member's id). */
async function carryOut(ctx: SyncContext, a: GroupAction): Promise<void> {
  switch (a.kind) {
    case "group_create":
      return create(ctx, a);
    case "group_update": {
      const issue = await ctx.github.updateIssue(a.repo, a.number, {
        title: a.title,
        body: withRevision(a.body, a.hash),
      });
      changeParent(ctx, a.groupId, a.repo, (p) => ({
        ...p,
        hash: a.hash,
        ...(issue.id !== null ? { id: issue.id } : {}),
      }));
      ctx.emit({
        type: "group_written",
        threatId: a.groupId,
        issue: { repo: a.repo, number: a.number },
        detail: "update",
      });
      return;
    }
    case "group_state": {
      await ctx.github.updateIssue(a.repo, a.number, {
        state: a.target,
        stateReason: a.target === "closed" ? "completed" : "reopened",
      });
      changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, state: a.target }));
      ctx.emit({
        type: "group_written",
        threatId: a.groupId,
        issue: { repo: a.repo, number: a.number },
        detail: a.target === "closed" ? "close" : "reopen",
      });
      return;
    }
    case "member_id": {
      const issue = await ctx.github.getIssue(a.repo, a.number);
      const id = issue?.id ?? null;
      if (id === null) return;
      updateThreat(ctx, a.threatId, (r) =>
        r.issue && r.issue.repo === a.repo && r.issue.number === a.number
          ? { ...r, issue: { ...r.issue, id } }
          : r,
      );
      return;
    }
    case "attach":
      return attach(ctx, a);
    case "group_full":
      changeParent(ctx, a.groupId, a.repo, (p) => ({ ...p, checklistOnly: "full" }));
      sayOnce(
        ctx,
        `full:${a.groupId}:${a.repo}`,
        { group: a.groupId, parent: `${a.repo}#${a.number}`, beyond: a.beyond },
        "a group has more members than a parent may hold (100); the rest are in its checklist only",
      );
      return;
  }
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
      await carryOut(ctx, action);
    } catch (error) {
      if (isPermanentRefusal(error) && "number" in action && action.kind !== "member_id") {
        changeParent(ctx, action.groupId, action.repo, (p) => ({ ...p, refused: refusalOf(error) }));
        ctx.logger.warn(
          { group: action.groupId, parent: `${action.repo}#${action.number}`, err: String(error) },
          "GitHub refused a group's parent issue for good; it is written no more",
        );
      } else {
        ctx.logger.warn(
          {
            group: action.groupId,
            action: action.kind,
            err: error instanceof Error ? error.message : String(error),
          },
          "a group's write failed; it is planned again next cycle",
        );
      }
    }
    await persist(ctx);
  }
  return true;
}

function refusalOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** The group pass of one cycle; answers how many actions it planned. */
export async function syncGroups(ctx: SyncContext, opts: GroupPassOptions = {}): Promise<number> {
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
  const first = planGroups(ctx).filter((a) => !isAttachWork(a));
  if (!(await runAll(ctx, first, opts))) return first.length;
  // The parents as they are now (some just created): ids read, members attached, lowest priority.
  const rest = planGroups(ctx).filter(isAttachWork);
  const ids = rest.filter((a) => a.kind === "member_id");
  await runAll(
    ctx,
    rest.filter((a) => a.kind !== "member_id"),
    opts,
  );
  if (ids.length === 0) return first.length + rest.length;
  // Members whose ids were just read are attached in the same pass.
  await runAll(
    ctx,
    planGroups(ctx).filter((a) => a.kind === "attach"),
    opts,
  );
  return first.length + rest.length;
}
