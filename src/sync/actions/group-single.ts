import type { IssueSnapshot } from "../../github/index.js";
import type { Threat } from "../../platform/index.js";
import { withRevision } from "../../shared/index.js";
import type { GroupIssue, GroupRecord } from "../../state/index.js";
import { singleChanged, singleMade } from "../transitions/group.js";
import { personLogin } from "./write-helpers.js";
import {
  describeGroupState,
  groupCreateAsAsked,
  groupCreateIntent,
  groupWritten,
  sendGroupCreate,
  sendGroupState,
  stateDetail,
} from "./group-issue-writes.js";
import { QueueClass, type ActionModule, type ActionOf, type Settlement } from "./types.js";
import { statusAsAsked } from "./as-asked.js";

/**
 * A group's one issue (grouping `single` mode, contract "Workflow" → "Groups"): made under a
 * write-ahead intent resolved by the group's marker, kept to its checklist, closed and reopened
 * with its members, and a person's close or reopen carried to the members as verdicts, one PATCH
 * each. The subject is the group's key, which the intent carries as its `threatId`.
 */

function changed(
  action: { groupId: string; repo: string },
  change: (i: GroupIssue) => GroupIssue,
): NonNullable<Settlement["group"]> {
  return {
    id: action.groupId,
    change: (g) => singleChanged(g, action.repo, (i) => (i === undefined ? i : change(i))),
  };
}

export const singleCreateAction: ActionModule<ActionOf<"single_create">, IssueSnapshot> = {
  kind: "single_create",
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({
    action: "group",
    title: action.title,
    labels: action.labels,
    detail: "create group issue",
  }),
  intent: groupCreateIntent,
  send: sendGroupCreate,
  asAsked: groupCreateAsAsked,
  settle: (action, issue) => ({
    group: {
      id: action.groupId,
      change: (g) => singleChanged(g, action.repo, () => singleMade(issue, action.hash)),
    },
    linkMembers: { groupId: action.groupId, repo: action.repo },
    events: [groupWritten({ ...action, number: issue.number }, "create")],
    commit: "none",
  }),
};

export const singleUpdateAction: ActionModule<ActionOf<"single_update">, null> = {
  kind: "single_update",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({ action: "group", title: action.title, detail: "update checklist" }),
  async send(action, io) {
    await io.github.updateIssue(action.repo, action.number, {
      title: action.title,
      body: withRevision(action.body, action.hash),
    });
    return null;
  },
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: changed(action, (i) => ({ ...i, hash: action.hash })),
    events: [groupWritten(action, "update")],
    commit: "checkpoint",
  }),
};

export const singleStateAction: ActionModule<ActionOf<"single_state">, null> = {
  kind: "single_state",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: describeGroupState,
  send: sendGroupState,
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: changed(action, (i) => ({ ...i, state: action.target })),
    events: [groupWritten(action, stateDetail(action))],
    commit: "checkpoint",
  }),
};

/** The member's status as the platform answered its verdict, and when (a later, older version is stale). */
function withVerdict(group: GroupRecord, threatId: string, threat: Threat | null): GroupRecord {
  const member = group.members[threatId];
  if (!member || threat === null) return group;
  const answered = { ...member, status: threat.status, verdictAt: threat.updated_at };
  return { ...group, members: { ...group.members, [threatId]: answered } };
}

/** One member's verdict of a person's close or reopen of the group's issue (a repeat finds the platform agreeing). */
export const singleVerdictAction: ActionModule<ActionOf<"single_verdict">, Threat | null> = {
  kind: "single_verdict",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) =>
    action.status === null ? { hidden: true } : { action: "verdict", detail: action.status },
  send: (action, io) =>
    action.status === null
      ? Promise.resolve(null)
      : io.platform.setStatus(action.threatId, action.status, action.note),
  async asAsked(action, io) {
    if (action.status === null) return null;
    const answered = await statusAsAsked(io, action.threatId, action.status, action.note);
    return answered.gone ? null : answered.answer;
  },
  settle: (action, threat) => ({
    group: {
      id: action.groupId,
      change: (g) =>
        singleChanged(withVerdict(g, action.threatId, threat), action.repo, (i) =>
          i?.person
            ? {
                ...i,
                person: { ...i.person, pending: i.person.pending.filter((id) => id !== action.threatId) },
              }
            : i,
        ),
    },
    events:
      action.status === null
        ? []
        : [
            {
              type: "verdict_sent",
              threatId: action.threatId,
              issue: { repo: action.repo, number: action.number },
              detail: action.status,
              answered: threat?.status ?? null,
              by: personLogin(action.login),
            },
          ],
    commit: "checkpoint",
  }),
};

/** No write: every verdict of a person's change was sent, and the issue's state is the person's. */
export const singlePersonDoneAction: ActionModule<ActionOf<"single_person_done">, null> = {
  kind: "single_person_done",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: () => ({ hidden: true }),
  send: () => Promise.resolve(null),
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: changed(action, (current) => {
      const { person, closedByPerson: _before, ...issue } = current;
      if (!person || person.pending.length > 0) return current;
      const state = person.event === "closed" ? "closed" : "open";
      return person.event === "closed"
        ? { ...issue, state, closedByPerson: person.targets }
        : { ...issue, state };
    }),
    events: [],
    commit: "checkpoint",
  }),
};
