import { escapePlainText } from "./escape.js";
import { MAX_TITLE_LENGTH } from "./limits.js";
import { precut, truncateWithEllipsis } from "./truncate.js";
import type { AssetView, ThreatView } from "./types.js";

/** The default title, `[High] <title> — <asset name>`; a missing title degrades to the threat id (contract). */

const SEVERITY_MAX = 24;
const ASSET_MAX = 80;

function plain(raw: string | null, max: number): string {
  if (raw === null) return "";
  return escapePlainText(precut(raw, max * 4).text);
}

export function defaultTitle(threat: ThreatView, asset: AssetView | null): string {
  const word = plain(threat.severity, SEVERITY_MAX);
  // Capitalized by toUpperCase, not toLocaleUpperCase: locale-independent.
  const severity = truncateWithEllipsis(word.charAt(0).toUpperCase() + word.slice(1), SEVERITY_MAX);
  const assetName = truncateWithEllipsis(plain(asset?.name ?? null, ASSET_MAX), ASSET_MAX);
  const main =
    plain(threat.title, MAX_TITLE_LENGTH) || plain(threat.id, MAX_TITLE_LENGTH) || "(untitled threat)";
  const prefix = severity === "" ? "" : `[${severity}] `;
  const suffix = assetName === "" ? "" : ` — ${assetName}`;
  const room = MAX_TITLE_LENGTH - prefix.length - suffix.length;
  return `${prefix}${truncateWithEllipsis(main, room)}${suffix}`;
}
