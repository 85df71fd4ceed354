import { createHash } from "node:crypto";
import { groupTitleScope } from "../../config/template-scopes.js";
import { groupMarkerFor, GROUP_LABEL } from "../../shared/index.js";
import { severityName } from "../render/normalize.js";
import { escapeMarkdownInline, escapePlainText, neutralizeMarkers } from "../render/escape.js";

/** A group's parent issue rendered from its members (pure); platform text escaped as in any issue. */

/** At most this many checklist lines, then "and N more" (contract, "Groups"). */
export const CHECKLIST_MAX = 100;
/** GitHub's limit on a title (characters). */
const TITLE_MAX = 256;

/** One member as the parent's checklist shows it. */
export interface MemberView {
  threatId: string;
  title: string;
  /** 0 informational .. 4 critical. */
  severity: number;
  repo: string;
  number: number;
  /** GitHub's id of the member's issue; null until known. */
  id: number | null;
  state: "open" | "closed";
  /** The member's SLA due date (YYYY-MM-DD), when the SLA feature gives it one. */
  due: string | null;
}

export interface GroupScope {
  by: string;
  key: string;
  /** What people call the key where it is not readable (an asset group's asset name): `group.name`. */
  name?: string | null | undefined;
}

/** The key as a person reads it: `name (key)` where a name is known, else the key. */
export function groupHeading(group: GroupScope): string {
  const name = group.name ?? null;
  return name === null || name === group.key ? group.key : `${name} (${group.key})`;
}

export interface RenderedParent {
  title: string;
  body: string;
  labels: string[];
  /** Hash of what the parent shows: it is rewritten only when this changes. */
  hash: string;
}

/** Open members first, then the most severe, then the oldest issue: the checklist's order. */
function checklistOrder(a: MemberView, b: MemberView): number {
  if (a.state !== b.state) return a.state === "open" ? -1 : 1;
  if (a.severity !== b.severity) return b.severity - a.severity;
  return a.repo === b.repo ? a.number - b.number : a.repo.localeCompare(b.repo);
}

function checklistLine(m: MemberView): string {
  return `- [${m.state === "closed" ? "x" : " "}] ${m.repo}#${m.number} ${escapeMarkdownInline(m.title)}`;
}

export function renderParent(
  group: GroupScope,
  members: readonly MemberView[],
  opts: { managedLabel: string; title: (scope: object) => string },
): RenderedParent {
  const sorted = [...members].sort(checklistOrder);
  const open = sorted.filter((m) => m.state === "open");
  const highest = open.reduce<number | null>(
    (top, m) => (top === null ? m.severity : Math.max(top, m.severity)),
    null,
  );
  const due = members.reduce<string | null>(
    (first, m) => (m.due !== null && (first === null || m.due < first) ? m.due : first),
    null,
  );
  const key = escapePlainText(group.key);
  const title = neutralizeMarkers(
    opts.title(
      groupTitleScope({
        key,
        name: escapePlainText(group.name ?? group.key),
        by: group.by,
        open: open.length,
        total: members.length,
      }),
    ),
  )
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, TITLE_MAX);
  const lines = [
    `Threats grouped by ${group.by}: **${escapeMarkdownInline(groupHeading(group))}**`,
    "",
    `- Highest open severity: ${severityName(highest) ?? "none open"}`,
    ...(due === null ? [] : [`- Earliest due date: ${due}`]),
    `- Members: ${open.length} open of ${members.length}`,
    "",
    ...sorted.slice(0, CHECKLIST_MAX).map(checklistLine),
    ...(sorted.length > CHECKLIST_MAX ? [`- and ${sorted.length - CHECKLIST_MAX} more`] : []),
    "",
    groupMarkerFor(group.by, group.key),
  ];
  const body = lines.join("\n");
  const labels = [opts.managedLabel, GROUP_LABEL];
  const hash = createHash("sha256")
    .update(JSON.stringify([title || group.key, body, labels]))
    .digest("hex")
    .slice(0, 16);
  return { title: title || key, body, labels, hash };
}
