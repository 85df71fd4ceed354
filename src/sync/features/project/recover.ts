import type { Intent } from "../../schema.js";
import { intentSubject } from "../../records/subject.js";
import { groupItemChanged, threatItemChanged } from "./item-change.js";
import { runtimeFor } from "./runtime.js";
import { issueKey } from "./slice.js";
import type { FeatureContext } from "../types.js";

/** A lost add: the items are listed for the issue's; not found, it did not land. Reads only. */
export async function recoverAdd(ctx: FeatureContext, intent: Intent): Promise<boolean> {
  const runtime = runtimeFor(ctx);
  if (runtime === null || intent.number === undefined) return false;
  const resolved = await runtime.resolve();
  if (resolved === null) return false;
  const known = intent.data === undefined ? NaN : Number(intent.data);
  const issueId = Number.isInteger(known)
    ? known
    : ((await ctx.github.getIssue(intent.repo, intent.number))?.id ?? undefined);
  if (issueId === undefined || issueId === null) return false;
  const found = await runtime.conversation.findProjectItem(resolved.project, issueId);
  if (!found.available || found.item === null) return false;
  const key = issueKey({ repo: intent.repo, number: intent.number });
  const item = { i: found.item.id, v: {} };
  // A group's issue (its intent's subject): the item is recorded on the group's record.
  if (intentSubject(intent) === "group") {
    const group = ctx.state.groups?.[intent.threatId];
    if (group === undefined) return true;
    ctx.putGroup(
      intent.threatId,
      groupItemChanged(group, key, () => item),
    );
  } else {
    ctx.updateThreat(intent.threatId, (r) => threatItemChanged(r, key, () => item));
  }
  return true;
}
