import type { RelatedView } from "../render/index.js";
import type { DryRunRecord } from "../render/dry-run-record.js";

/** A dry-run line of a body write, with the related assets that body would list. */
export function relatedRecord(record: DryRunRecord, related: RelatedView | null): DryRunRecord {
  if (related === null) return { ...record, detail: joined(record.detail, "related assets: not read") };
  const names = related.assets.map((asset) => asset.name ?? asset.id);
  const more = related.more > 0 ? ` and ${String(related.more)} more` : "";
  const listed = names.length === 0 ? "none" : `${names.join(", ")}${more}`;
  return {
    ...record,
    detail: joined(record.detail, `related assets: ${listed}`),
    related_assets: related.assets.map((asset) => ({ id: asset.id, name: asset.name, type: asset.type })),
    related_more: related.more,
  };
}

function joined(detail: string | undefined, text: string): string {
  return detail === undefined ? text : `${detail}; ${text}`;
}
