import { isPermanentRefusal } from "../../github/index.js";
import { groupMarkerFor, withRevision } from "../../shared/index.js";
import type { GroupIssue, Intent } from "../../state/index.js";
import { checkpoint, persist, type SyncContext } from "../context.js";
import { withIntent } from "../run/intents.js";
import { adoptExisting, allowedAfter } from "./adopt-existing.js";
import { groupRuntime } from "./membership.js";
import { planSingle, type SingleAction } from "./plan-single.js";
import { membersOf, recordCreated, setIssue } from "./single-members.js";

/**
 * The group pass of grouping `single` mode: each group's one issue per repository made (under a
 * write-ahead intent resolved by the group's marker), kept to its checklist, closed and reopened
 * with its members, and a person's close or reopen carried to the members as verdicts, one PATCH
 * each. Its members' links are the planner's (plan.ts, single members): queued when the issue is made.
 */

export function planSingles(ctx: SyncContext): SingleAction[] {
  const runtime = groupRuntime(ctx);
  const actions: SingleAction[] = [];
  for (const [groupId, group] of Object.entries(ctx.state.groups ?? {})) {
    const byRepo = membersOf(ctx, group);
    for (const repo of new Set([...byRepo.keys(), ...Object.keys(group.single ?? {})])) {
      actions.push(
        ...planSingle({
          groupId,
          repo,
          by: group.by,
          key: group.key,
          members: byRepo.get(repo) ?? [],
          issue: group.single?.[repo],
          managedLabel: ctx.policy.managedLabel,
          title: runtime.title,
          policy: ctx.policy,
        }),
      );
    }
  }
  return actions;
}

function issueOf(ctx: SyncContext, groupId: string, repo: string): GroupIssue | undefined {
  return ctx.state.groups?.[groupId]?.single?.[repo];
}

/** A lost create of a single-mode issue, resolved by its marker (as a parent's). */
export async function resolveSingleCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const { threatId: groupId, repo } = intent;
  const group = ctx.state.groups?.[groupId];
  if (!group || !ctx.workflow) return false;
  const since = new Date(Date.parse(intent.startedAt) - 5 * 60_000).toISOString();
  const issue = await ctx.workflow.findGroupParent(repo, groupMarkerFor(group.by, group.key), since);
  if (!issue) return false;
  if (issueOf(ctx, groupId, repo) === undefined) recordCreated(ctx, groupId, repo, issue, "");
  ctx.emit({ type: "intent_found", threatId: groupId, intentId: intent.id });
  return true;
}

async function carryOut(ctx: SyncContext, a: SingleAction): Promise<void> {
  switch (a.kind) {
    case "single_create":
      return withIntent(
        ctx,
        { kind: "group_create", threatId: a.groupId, repo: a.repo },
        async () => {
          const issue = await ctx.github.createIssue(a.repo, {
            title: a.title,
            body: withRevision(a.body, a.hash),
            labels: a.labels,
            assignees: [],
          });
          recordCreated(ctx, a.groupId, a.repo, issue, a.hash);
          ctx.emit({
            type: "group_written",
            threatId: a.groupId,
            issue: { repo: a.repo, number: issue.number },
            detail: "create",
          });
        },
        { resolve: (intent) => resolveSingleCreate(ctx, intent) },
      );
    case "single_update":
      await ctx.github.updateIssue(a.repo, a.number, { title: a.title, body: withRevision(a.body, a.hash) });
      setIssue(ctx, a.groupId, a.repo, (i) => ({ ...(i as GroupIssue), hash: a.hash }));
      ctx.emit({
        type: "group_written",
        threatId: a.groupId,
        issue: { repo: a.repo, number: a.number },
        detail: "update",
      });
      return;
    case "single_state":
      await ctx.github.updateIssue(a.repo, a.number, {
        state: a.target,
        stateReason: a.target === "closed" ? "completed" : "reopened",
      });
      setIssue(ctx, a.groupId, a.repo, (i) => ({ ...(i as GroupIssue), state: a.target }));
      ctx.emit({
        type: "group_written",
        threatId: a.groupId,
        issue: { repo: a.repo, number: a.number },
        detail: a.target === "closed" ? "close" : "reopen",
      });
      return;
    case "single_verdict":
      if (a.status !== null) {
        await ctx.platform.setStatus(a.threatId, a.status, a.note);
        ctx.emit({
          type: "verdict_sent",
          threatId: a.threatId,
          issue: { repo: a.repo, number: a.number },
          detail: a.status,
        });
      }
      setIssue(ctx, a.groupId, a.repo, (i) => {
        const issue = i as GroupIssue;
        const person = issue.person;
        return person
          ? { ...issue, person: { ...person, pending: person.pending.filter((id) => id !== a.threatId) } }
          : issue;
      });
      return;
    case "single_person_done":
      setIssue(ctx, a.groupId, a.repo, (i) => {
        const { person, closedByPerson: _before, ...issue } = i as GroupIssue;
        if (!person || person.pending.length > 0) return i as GroupIssue;
        const state = person.event === "closed" ? "closed" : "open";
        return person.event === "closed"
          ? { ...issue, state, closedByPerson: person.targets }
          : { ...issue, state };
      });
      return;
  }
}

/** The single-mode pass of one cycle; answers how many actions it planned. */
export async function syncSingles(ctx: SyncContext, stop: () => boolean): Promise<number> {
  let actions = planSingles(ctx);
  // A group's issue found on GitHub is taken over before any create goes out (a lost state).
  const adoption = await adoptExisting(
    ctx,
    actions.filter((a) => a.kind === "single_create"),
  );
  if (adoption.adopted > 0) actions = planSingles(ctx);
  actions = actions.filter((a) => allowedAfter(adoption, a));
  for (const action of actions) {
    if (stop()) break;
    try {
      await carryOut(ctx, action);
    } catch (error) {
      if (isPermanentRefusal(error) && (action.kind === "single_update" || action.kind === "single_state")) {
        // Deleted (404, 410), locked or archived: written no more, and the group gets no second issue.
        const refused = (error instanceof Error ? error.message : String(error)).slice(0, 200);
        setIssue(ctx, action.groupId, action.repo, (i) => ({ ...(i as GroupIssue), refused }));
        ctx.logger.warn(
          { group: action.groupId, issue: `${action.repo}#${action.number}`, err: refused },
          "GitHub refused a group's issue for good; it is written no more",
        );
        await checkpoint(ctx);
        continue;
      }
      ctx.logger.warn(
        {
          group: action.groupId,
          action: action.kind,
          err: error instanceof Error ? error.message : String(error),
        },
        "a group issue's step failed; it is planned again next cycle",
      );
      // The verdicts of a person's change go in order: the rest wait for the next pass.
      if (action.kind === "single_verdict") break;
    }
    // These writes are idempotent or resolved by reading (a repeated attach is "already
    // attached", a repeated verdict finds the platform agreeing): batched into checkpoints.
    await checkpoint(ctx);
  }
  await persist(ctx);
  return actions.length;
}
