import { isPermanentRefusal } from "../../github/index.js";
import type { GroupIssue } from "../../state/index.js";
import { checkpoint, persist, type SyncContext } from "../context.js";
import { runAction } from "../run/run-action.js";
import { adoptExisting, allowedAfter } from "./adopt-existing.js";
import { groupRuntime } from "./membership.js";
import { planSingle, type SingleAction } from "./plan-single.js";
import { membersOf, setIssue } from "./single-members.js";
import { currentGroups } from "./supersede.js";
import { markerHeld } from "./change-grouping.js";

/**
 * The group pass of grouping `single` mode: each group's one issue per repository made (under a
 * write-ahead intent resolved by the group's marker), kept to its checklist, closed and reopened
 * with its members, and a person's close or reopen carried to the members as verdicts, one PATCH
 * each: plain actions (plan-single.ts) carried out by the one runner (run/run-action.ts) through
 * their modules (actions/group-single.ts). Its members' links are the planner's (plan.ts, single
 * members): queued when the issue is made.
 */

export function planSingles(ctx: SyncContext): SingleAction[] {
  const runtime = groupRuntime(ctx);
  const actions: SingleAction[] = [];
  for (const [groupId, group] of currentGroups(ctx)) {
    const byRepo = membersOf(ctx, group);
    for (const repo of new Set([...byRepo.keys(), ...Object.keys(group.single ?? {})])) {
      actions.push(
        ...planSingle({
          groupId,
          repo,
          by: group.by,
          key: group.key,
          name: group.by === "asset" ? (ctx.state.assets[group.key]?.name ?? null) : null,
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

/** The single-mode pass of one cycle; answers how many actions it planned. */
export async function syncSingles(ctx: SyncContext, stop: () => boolean): Promise<number> {
  let actions = planSingles(ctx).filter(
    (a) => !(a.kind === "single_create" && markerHeld(ctx, a.groupId, a.repo)),
  );
  // A group's issue found on GitHub is taken over before any create goes out (a lost state).
  const adoption = await adoptExisting(
    ctx,
    actions.filter((a) => a.kind === "single_create"),
  );
  if (adoption.adopted > 0) actions = planSingles(ctx);
  // A group's new issue waits while an old setting's issue of the same marker is not retired.
  actions = actions.filter(
    (a) => allowedAfter(adoption, a) && !(a.kind === "single_create" && markerHeld(ctx, a.groupId, a.repo)),
  );
  for (const action of actions) {
    if (stop()) break;
    try {
      await runAction(ctx, action);
    } catch (error) {
      if (isPermanentRefusal(error) && (action.kind === "single_update" || action.kind === "single_state")) {
        // Deleted (404, 410), locked or archived: written no more, and the group gets no second issue.
        const refused = (error instanceof Error ? error.message : String(error)).slice(0, 200);
        setIssue(ctx, action.groupId, action.repo, (i) => ({ ...(i as GroupIssue), refused }));
        ctx.logger.warn(
          { group: action.groupId, issue: `${action.repo}#${action.number}`, err: error },
          "GitHub refused a group's issue for good; it is written no more",
        );
        await checkpoint(ctx);
        continue;
      }
      ctx.logger.warn(
        {
          group: action.groupId,
          action: action.kind,
          err: error,
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
