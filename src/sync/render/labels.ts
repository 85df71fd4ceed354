import { moduleLabel, severityLabel } from "../../shared/index.js";
import { stripBidi } from "./escape.js";
import { MAX_LABEL_LENGTH } from "./limits.js";
import { precut } from "./truncate.js";
import type { ThreatView } from "./types.js";

/**
 * The labels. The route's are given at creation only (contract, "Conventions"); none follows
 * the platform status, so a verdict's echo costs no GitHub write. GitHub compares names
 * case-insensitively, so duplicates are dropped ignoring case (the first wins).
 */

function cleanLabel(raw: string): string {
  const text = stripBidi(raw)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    // Commas separate labels in GitHub queries; control characters and line breaks have no place.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[,\u0000-\u001F\u007F-\u009F\u2028\u2029]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return precut(text, MAX_LABEL_LENGTH).text.trim();
}

/** The connector's own labels of the threat's issue (every update brings them back). */
export function labelsFor(threat: ThreatView, managedLabel: string): string[] {
  const candidates = [managedLabel];
  const severity = cleanLabel(threat.severity ?? "").toLowerCase();
  const module = cleanLabel(threat.module ?? "").toLowerCase();
  if (severity !== "") candidates.push(severityLabel(severity));
  if (module !== "") candidates.push(moduleLabel(module));
  return withLabels(candidates, []);
}

/** A new issue's labels: the connector's own, then those its route adds (cleaned, once each, sorted). */
export function withLabels(own: readonly string[], added: readonly string[]): string[] {
  const seen = new Set<string>();
  const labels: string[] = [];
  for (const candidate of [...own, ...added]) {
    const label = cleanLabel(candidate);
    const key = label.toLowerCase();
    if (label === "" || seen.has(key)) continue;
    seen.add(key);
    labels.push(label);
  }
  return labels.sort();
}
