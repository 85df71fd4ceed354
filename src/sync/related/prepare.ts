import type { RelatedView } from "../render/index.js";
import type { RelatedAssets } from "./related-store.js";

/**
 * Whether the plan writes the body: a create, a feature's write that says it does (a new
 * occurrence's issue), or an update whose content changed (its `content` is there, rendered only
 * when read: `in` does not render).
 */
export function writesBody(action: { kind: string; writesBody?: boolean }): boolean {
  return (
    action.kind === "create" ||
    (action.kind === "feature" && action.writesBody === true) ||
    (action.kind === "update" && "content" in action)
  );
}

/**
 * Reads the related assets of the threat's asset before its body is rendered, only when the plan
 * writes that body (the renderer then finds them: its body is rendered lazily, when sent). Answers
 * the list read (null: none to show), or undefined when nothing was read for this plan.
 */
export async function prepareRelated(
  related: RelatedAssets | undefined,
  assetId: string | null | undefined,
  actions: readonly { kind: string }[],
): Promise<RelatedView | null | undefined> {
  if (!related || !assetId || !actions.some(writesBody)) return undefined;
  return related.load(assetId);
}
