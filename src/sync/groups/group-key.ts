import type { GroupBy } from "../../config/index.js";
import type { ThreatView } from "../render/index.js";

/** What groups a threat (contract, "Groups"): asset, title, module, or the first CVE id in its title. */

/** The first `CVE-YYYY-NNNN…` of a title, any case: CVE ids have four or more digits after the year. */
const CVE = /\bCVE-(\d{4})-(\d{4,})\b/i;

export function groupKeyOf(
  by: GroupBy,
  view: Pick<ThreatView, "title" | "assetId" | "module">,
): string | null {
  const key = rawKey(by, view);
  const trimmed = key?.trim() ?? "";
  return trimmed === "" ? null : trimmed;
}

function rawKey(by: GroupBy, view: Pick<ThreatView, "title" | "assetId" | "module">): string | null {
  switch (by) {
    case "asset":
      return view.assetId;
    case "title":
      return view.title;
    case "module":
      return view.module;
    case "cve": {
      const match = view.title === null ? null : CVE.exec(view.title);
      // Written as CVE writes it, so `cve-2024-1234` and `CVE-2024-1234` are one group.
      return match ? `CVE-${match[1] ?? ""}-${match[2] ?? ""}` : null;
    }
  }
}

/** The state's key of a group (src/state/README-store.md, "Groups"). */
export function groupIdOf(by: GroupBy, key: string): string {
  return `group:${by}:${key}`;
}
