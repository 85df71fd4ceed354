import type { IssueSnapshot } from "../../github/index.js";
import { withRevision } from "../../shared/index.js";
import { parentChanged, parentMade, withParent } from "../transitions/group.js";
import {
  describeGroupState,
  groupCreateAsAsked,
  groupCreateIntent,
  groupWritten,
  sendGroupCreate,
  sendGroupState,
  stateDetail,
} from "./group-issue-writes.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { issueAsAsked } from "./as-asked.js";

/**
 * A group's parent issue (grouping `parent` mode, contract "Groups"): its create under an intent
 * resolved by the group's marker, its checklist's update, its state, and the "checklist only" note.
 */

export const groupCreateAction: ActionModule<ActionOf<"group_create">, IssueSnapshot> = {
  kind: "group_create",
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({
    action: "group",
    title: action.title,
    labels: action.labels,
    detail: "create parent",
  }),
  intent: groupCreateIntent,
  send: sendGroupCreate,
  asAsked: groupCreateAsAsked,
  settle: (action, issue) => ({
    group: { id: action.groupId, change: (g) => withParent(g, action.repo, parentMade(issue, action.hash)) },
    events: [
      {
        type: "group_written",
        threatId: action.groupId,
        issue: { repo: issue.repo, number: issue.number },
        detail: "create",
      },
    ],
    commit: "none",
  }),
};

export const groupUpdateAction: ActionModule<ActionOf<"group_update">, IssueSnapshot> = {
  kind: "group_update",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({ action: "group", title: action.title, detail: "update checklist" }),
  // The same content twice is the same issue: no intent.
  send: (action, io) =>
    io.github.updateIssue(action.repo, action.number, {
      title: action.title,
      body: withRevision(action.body, action.hash),
    }),
  asAsked: (action, io) =>
    Promise.resolve(
      issueAsAsked(io, null, { repo: action.repo, number: action.number, id: null, url: "", state: "open" }),
    ),
  settle: (action, issue) => ({
    group: {
      id: action.groupId,
      change: (g) =>
        parentChanged(g, action.repo, (p) => ({
          ...p,
          hash: action.hash,
          ...(issue.id !== null ? { id: issue.id } : {}),
        })),
    },
    events: [groupWritten(action, "update")],
    commit: "checkpoint",
  }),
};

export const groupStateAction: ActionModule<ActionOf<"group_state">, null> = {
  kind: "group_state",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: describeGroupState,
  // Written only when the members' target changes, and the same state twice is the same issue.
  send: sendGroupState,
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: {
      id: action.groupId,
      change: (g) => parentChanged(g, action.repo, (p) => ({ ...p, state: action.target })),
    },
    events: [groupWritten(action, stateDetail(action))],
    commit: "checkpoint",
  }),
};

/** No write: the members beyond GitHub's 100 stay in the checklist, said once. */
export const groupFullAction: ActionModule<ActionOf<"group_full">, null> = {
  kind: "group_full",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({
    action: "group",
    detail: `${action.beyond} more members than a parent holds: checklist only`,
  }),
  send: () => Promise.resolve(null),
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: {
      id: action.groupId,
      change: (g) => parentChanged(g, action.repo, (p) => ({ ...p, checklistOnly: "full" })),
    },
    notice: {
      level: "warn",
      once: `full:${action.groupId}:${action.repo}`,
      fields: { group: action.groupId, issue: `${action.repo}#${action.number}`, beyond: action.beyond },
      message: "a group has more members than a parent may hold (100); the rest are in its checklist only",
    },
    events: [],
    commit: "checkpoint",
  }),
};
