import { createHash } from "node:crypto";
import { groupTitleScope } from "../../config/template-scopes.js";
import { groupMarkerFor, GROUP_LABEL, type SettableStatus } from "../../shared/index.js";
import type { GroupIssue, PersonChange } from "../schema.js";
import { severityName } from "../render/normalize.js";
import { desiredIssueState, verdictFor, type Policy } from "../plan/policy.js";
import { escapeMarkdownInline, escapePlainText, neutralizeMarkers } from "../render/escape.js";
import type { GroupIssueWrite, GroupRef } from "./plan-groups.js";
import { CHECKLIST_MAX, groupHeading } from "./render-parent.js";

/**
 * Grouping `single` mode (pure): a group is one issue whose body is the members' checklist, made
 * once a member is open, closed when none is, reopened when one is. A person's close or reopen is
 * sent as verdicts to the members it concerns.
 */

export interface SingleMemberView {
  threatId: string;
  title: string;
  severity: number;
  /** The asset's name (or id) for the checklist; null when the threat has none. */
  asset: string | null;
  /** The platform's status as last read. */
  status: string;
}

export type SingleAction =
  | GroupIssueWrite<"single_create", "single_update", "single_state">
  | (GroupRef & {
      kind: "single_verdict";
      number: number;
      threatId: string;
      /** null: the member needs none (the platform already agrees): it is only taken off the list. */
      status: SettableStatus | null;
      note: string;
      /** The login of the person whose close or reopen the verdict carries (for the audit line). */
      login: string;
    })
  /** Every verdict of a person's change was sent: the issue's state is the person's. */
  | (GroupRef & { kind: "single_person_done"; number: number });

export interface SinglePlanInput {
  groupId: string;
  repo: string;
  by: string;
  key: string;
  /** An asset group's asset name (GroupScope.name). */
  name?: string | null | undefined;
  members: readonly SingleMemberView[];
  issue: GroupIssue | undefined;
  managedLabel: string;
  title: (scope: object) => string;
  policy: Policy;
  /** The issue's URL and number for a verdict's note. */
  person?: PersonChange;
}

/** Open on the platform: `unsolved` (a `pending` member no longer holds its group's issue open). */
export function isOpenOnPlatform(status: string): boolean {
  return desiredIssueState(status)?.state === "open";
}

function checklistLine(m: SingleMemberView): string {
  const severity = severityName(m.severity) ?? "-";
  const asset = m.asset === null ? "" : ` ${escapeMarkdownInline(m.asset)} —`;
  return `- [${isOpenOnPlatform(m.status) ? " " : "x"}] **${severity}**${asset} ${escapeMarkdownInline(m.title)}`;
}

export function renderSingle(
  input: Pick<SinglePlanInput, "by" | "key" | "name" | "members" | "managedLabel" | "title">,
): { title: string; body: string; labels: string[]; hash: string } {
  const sorted = [...input.members].sort(
    (a, b) =>
      Number(isOpenOnPlatform(b.status)) - Number(isOpenOnPlatform(a.status)) ||
      b.severity - a.severity ||
      a.title.localeCompare(b.title),
  );
  const open = sorted.filter((m) => isOpenOnPlatform(m.status)).length;
  const key = escapePlainText(input.key);
  const title =
    neutralizeMarkers(
      input.title(
        groupTitleScope({
          key,
          name: escapePlainText(input.name ?? input.key),
          by: input.by,
          open,
          total: sorted.length,
        }),
      ),
    )
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 256) || key;
  const body = [
    `Threats grouped by ${input.by}: **${escapeMarkdownInline(groupHeading(input))}** (${open} open of ${sorted.length})`,
    "",
    ...sorted.slice(0, CHECKLIST_MAX).map(checklistLine),
    ...(sorted.length > CHECKLIST_MAX ? [`- and ${sorted.length - CHECKLIST_MAX} more`] : []),
    "",
    groupMarkerFor(input.by, input.key),
  ].join("\n");
  const labels = [input.managedLabel, GROUP_LABEL];
  const hash = createHash("sha256")
    .update(JSON.stringify([title, body, labels]))
    .digest("hex")
    .slice(0, 16);
  return { title, body, labels, hash };
}

/** A person's close or reopen of the issue: its verdicts, one per member still to send, then done. */
export function planPerson(input: SinglePlanInput, issue: GroupIssue): SingleAction[] {
  const person = issue.person;
  if (!person) return [];
  const { groupId, repo } = input;
  const rule = verdictFor(person.event, person.reason, input.policy);
  const change: PersonChange = input.person ?? {
    event: person.event,
    reason: person.reason,
    login: person.login,
    repo,
    number: issue.number,
    url: issue.url,
    seenAt: person.seenAt,
  };
  const byId = new Map(input.members.map((m) => [m.threatId, m]));
  const actions: SingleAction[] = person.pending.map((threatId) => {
    const m = byId.get(threatId);
    // Only the very status the verdict sets makes its PATCH needless (`pending` is no verdict).
    const needed = m !== undefined && m.status !== rule.status;
    return {
      kind: "single_verdict",
      groupId,
      repo,
      number: issue.number,
      threatId,
      status: needed ? rule.status : null,
      note: needed ? input.policy.verdictNote(rule.status_note, change) : "",
      login: change.login,
    };
  });
  return [...actions, { kind: "single_person_done", groupId, repo, number: issue.number }];
}

export function planSingle(input: SinglePlanInput): SingleAction[] {
  const { groupId, repo, issue } = input;
  const open = input.members.filter((m) => isOpenOnPlatform(m.status)).length;
  const rendered = renderSingle(input);
  if (issue === undefined) {
    return open > 0 ? [{ kind: "single_create", groupId, repo, ...rendered }] : [];
  }
  if (issue.refused !== undefined) return [];
  const actions: SingleAction[] = [];
  if (rendered.hash !== issue.hash) {
    const { title, body, hash } = rendered;
    actions.push({ kind: "single_update", groupId, repo, number: issue.number, title, body, hash });
  }
  // A person's change is carried to the members first; meanwhile the issue stays as they left it.
  if (issue.person) return [...actions, ...planPerson(input, issue)];
  const target = open > 0 ? "open" : "closed";
  if (input.members.length > 0 && target !== issue.state) {
    actions.push({ kind: "single_state", groupId, repo, number: issue.number, target });
  }
  return actions;
}

/** The members a person's change sends verdicts to: a close, every open member; a reopen, those that close closed. */
export function personTargets(
  event: "closed" | "reopened",
  members: readonly SingleMemberView[],
  closedByPerson: readonly string[] | undefined,
): string[] {
  if (event === "closed") return members.filter((m) => isOpenOnPlatform(m.status)).map((m) => m.threatId);
  const present = new Set(members.map((m) => m.threatId));
  return (closedByPerson ?? []).filter((id) => present.has(id));
}
