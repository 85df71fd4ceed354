import type { GroupParent } from "../schema.js";
import { renderParent, type GroupScope, type MemberView } from "./render-parent.js";

/**
 * What a group needs in one repository (pure): its parent made at `min_members` open members, its
 * checklist rewritten once per change, its state following its members, its members attached (up to 100).
 */

/** GitHub's limit of sub-issues per parent. */
export const SUB_ISSUES_MAX = 100;

export interface GroupRef {
  /** The state's key of the group, `group:<by>:<key>`. */
  groupId: string;
  repo: string;
}

/** The writes to a group's own issue, the same in both modes but for their kinds (actions/group-issue.ts). */
export type GroupIssueWrite<Create extends string, Update extends string, State extends string> =
  | (GroupRef & { kind: Create; title: string; body: string; labels: string[]; hash: string })
  | (GroupRef & { kind: Update; number: number; title: string; body: string; hash: string })
  | (GroupRef & { kind: State; number: number; target: "open" | "closed" });

export type GroupAction =
  | GroupIssueWrite<"group_create", "group_update", "group_state">
  /** A member whose issue id is not known: one read (GET) of its issue, before its attach. */
  | (GroupRef & { kind: "member_id"; threatId: string; number: number })
  | (GroupRef & {
      kind: "attach";
      parentNumber: number;
      threatId: string;
      childNumber: number;
      childId: number;
      /** The child is under a retired parent of an old grouping setting: it is moved here. */
      replaceParent?: true;
    })
  /** More members than a parent may hold: the rest are in the checklist only (said once). */
  | (GroupRef & { kind: "group_full"; number: number; beyond: number });

/** Writes that keep the parent right come first; reads of ids and attaches last (lowest priority). */
export function isAttachWork(action: GroupAction): boolean {
  return action.kind === "member_id" || action.kind === "attach" || action.kind === "group_full";
}

export interface GroupPlanInput extends GroupScope {
  groupId: string;
  repo: string;
  /** The group's members whose issues are in `repo`. */
  members: readonly MemberView[];
  parent: GroupParent | undefined;
  minMembers: number;
  managedLabel: string;
  title: (scope: object) => string;
  /** Whether sub-issues can be used at all (false where the engine has no workflow client). */
  subIssues: boolean;
  /** Members attached to a parent of an old grouping setting (groups/supersede.ts): moved, not left. */
  underOldParent?: ReadonlySet<string>;
}

export function planGroup(input: GroupPlanInput): GroupAction[] {
  const { groupId, repo, members, parent } = input;
  const open = members.filter((m) => m.state === "open").length;
  const rendered = renderParent(input, members, input);
  if (parent === undefined) {
    if (open < input.minMembers) return [];
    return [{ kind: "group_create", groupId, repo, ...rendered }];
  }
  // A parent GitHub refused for good (deleted, locked) is left alone: never a second one.
  if (parent.refused !== undefined) return [];
  const actions: GroupAction[] = [];
  if (rendered.hash !== parent.hash) {
    const { title, body, hash } = rendered;
    actions.push({ kind: "group_update", groupId, repo, number: parent.number, title, body, hash });
  }
  // Written only when the members' target changes: a person's close or reopen is not undone.
  const target = open > 0 ? "open" : "closed";
  if (members.length > 0 && target !== parent.state) {
    actions.push({ kind: "group_state", groupId, repo, number: parent.number, target });
  }
  if (input.subIssues && parent.checklistOnly === undefined) actions.push(...attachments(input, parent));
  return actions;
}

function attachments(input: GroupPlanInput, parent: GroupParent): GroupAction[] {
  const { groupId, repo } = input;
  const attached = new Set(parent.attached);
  const waiting = input.members.filter((m) => !attached.has(m.threatId)).sort((a, b) => a.number - b.number);
  const room = Math.max(0, SUB_ISSUES_MAX - attached.size);
  const actions: GroupAction[] = waiting.slice(0, room).map((m) =>
    m.id === null
      ? { kind: "member_id", groupId, repo, threatId: m.threatId, number: m.number }
      : {
          kind: "attach",
          groupId,
          repo,
          parentNumber: parent.number,
          threatId: m.threatId,
          childNumber: m.number,
          childId: m.id,
          ...(input.underOldParent?.has(m.threatId) ? { replaceParent: true as const } : {}),
        },
  );
  if (waiting.length > room) {
    actions.push({ kind: "group_full", groupId, repo, number: parent.number, beyond: waiting.length - room });
  }
  return actions;
}
