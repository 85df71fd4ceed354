import type { RelatedView } from "../render/index.js";
import type { RelatedAssets } from "./related-store.js";

/** Whether the plan writes the body (a create, a body-writing step, a content update), rendering nothing. */
export function writesBody(action: { kind: string; writesBody?: boolean }): boolean {
  return (
    action.kind === "create" ||
    (action.kind === "feature" && action.writesBody === true) ||
    (action.kind === "update" && "content" in action)
  );
}

/** Reads the related assets before a body that shows them is written; null: none; undefined: not read. */
export async function prepareRelated(
  related: RelatedAssets | undefined,
  assetId: string | null | undefined,
  actions: readonly { kind: string }[],
): Promise<RelatedView | null | undefined> {
  if (!related || !assetId || !actions.some(writesBody)) return undefined;
  return related.load(assetId);
}
