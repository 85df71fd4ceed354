import { withRevision } from "../../shared/index.js";
import type { Intent } from "../../state/index.js";
import type { SyncContext } from "../context.js";
import { updateThreat } from "../records/state-updates.js";
import { withIntent } from "../run/intents.js";
import { changeParent, markerOf, parentOf, sayOnce, setParent } from "./parent-state.js";
import type { GroupAction } from "./plan-groups.js";
import { resolveSingleCreate } from "./run-single.js";

/**
 * How each parent-mode group action is carried out: a parent's create under a write-ahead intent
 * resolved by the group's marker, its update and state change, a member's id read, an attach and
 * what GitHub's answer to it means (a repository without sub-issues, a full parent).
 */

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
export async function carryOut(ctx: SyncContext, a: GroupAction): Promise<void> {
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
