import { escapeMarkdownInline, escapePlainText } from "./escape.js";
import { precut, truncateWithEllipsis } from "./truncate.js";
import type { AssetView, RelatedView } from "./types.js";

/** The related assets (config `render.related_assets`), for the body and for templates, escaped as every cell. */

export const RELATED_HEADING = "### Related assets";
const NO_RELATED = "_No related assets._";

/** Lines past this count into "and N more", so the section never crowds out the description. */
const MAX_SECTION = 8_000;
const CAP = { name: 200, type: 50, id: 100 } as const;

function cell(raw: string, cap: number): string {
  const { text, cut } = precut(raw, cap);
  const escaped = escapeMarkdownInline(text);
  if (!cut && escaped.length <= cap * 2) return escaped;
  return truncateWithEllipsis(cut ? `${escaped}…` : escaped, cap * 2);
}

function line(asset: AssetView): string {
  const type = asset.type === null || asset.type.trim() === "" ? "" : ` (${cell(asset.type, CAP.type)})`;
  const name = asset.name === null || asset.name.trim() === "" ? null : cell(asset.name, CAP.name);
  const id = cell(asset.id, CAP.id);
  return name === null ? `- ${id}${type}` : `- ${name}${type}, ${id}`;
}

function moreLine(more: number): string {
  return `and ${String(more)} more`;
}

/** The section's Markdown, or null when there is no list to show (off, not read, or failed). */
export function relatedSection(related: RelatedView | null | undefined): string | null {
  if (!related) return null;
  if (related.assets.length === 0 && related.more === 0) return `${RELATED_HEADING}\n\n${NO_RELATED}`;
  const lines: string[] = [];
  let length = 0;
  let more = related.more;
  for (const asset of related.assets) {
    const next = line(asset);
    if (length + next.length + 1 > MAX_SECTION) {
      more += 1;
      continue;
    }
    lines.push(next);
    length += next.length + 1;
  }
  const list = lines.join("\n");
  return more > 0 ? `${RELATED_HEADING}\n\n${list}\n\n${moreLine(more)}` : `${RELATED_HEADING}\n\n${list}`;
}

type Escape = (text: string) => string;

function scopeText(value: string | null, escape: Escape, cap: number): string | null {
  return value === null ? null : escape(precut(value, cap).text);
}

/** What templates see: `related` (id, name, type, each escaped for where it goes) and `related_more`. */
export function relatedScope(
  related: RelatedView | null | undefined,
  markdown: boolean,
): { related: { id: string | null; name: string | null; type: string | null }[]; related_more: number } {
  const escape = markdown ? escapeMarkdownInline : escapePlainText;
  return {
    related: (related?.assets ?? []).map((asset) => ({
      id: scopeText(asset.id, escape, CAP.id),
      name: scopeText(asset.name, escape, CAP.name),
      type: scopeText(asset.type, escape, CAP.type),
    })),
    related_more: related?.more ?? 0,
  };
}
