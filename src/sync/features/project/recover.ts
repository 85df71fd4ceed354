import type { Intent } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import { updateThreat } from "../../records/state-updates.js";
import { withSlice } from "../types.js";
import { runtimeFor } from "./runtime.js";
import { encodeSlice, FEATURE, issueKey } from "./slice.js";

/**
 * An add whose answer was lost, or that a crash left (intent kind `feature`): the project's items
 * are listed until the issue's is found (`findProjectItem`), and then recorded; not found, it did
 * not land (false: the add is planned again). Reads only: at most one item per issue whatever
 * crashes, without relying on what GitHub does with a repeated add.
 */
export async function recoverAdd(ctx: SyncContext, intent: Intent): Promise<boolean> {
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
  const slice = encodeSlice({
    k: issueKey({ repo: intent.repo, number: intent.number }),
    i: found.item.id,
    v: {},
  });
  updateThreat(ctx, intent.threatId, (r) => withSlice(r, FEATURE, slice));
  return true;
}
