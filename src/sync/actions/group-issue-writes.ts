import type { IssueSnapshot } from "../../github/index.js";
import { withRevision, type EngineEvent } from "../../shared/index.js";
import type { ActionDescription, AskedIo, IntentSpec, SendIo } from "./types.js";
import { createdAsAsked } from "./as-asked.js";

/** What the writes to a group's own issue share in both modes: the audit event and the state change. */

interface GroupIssueRef {
  groupId: string;
  repo: string;
  number: number;
}

/** The `group_written` event of a write to a group's issue (`detail`: create, update, close, reopen). */
export function groupWritten(action: GroupIssueRef, detail: string): EngineEvent {
  return {
    type: "group_written",
    threatId: action.groupId,
    issue: { repo: action.repo, number: action.number },
    detail,
  };
}

type StateTarget = GroupIssueRef & { target: "open" | "closed" };

/** A group's issue closes as `completed` with its members, and reopens with one. */
export async function sendGroupState(action: StateTarget, io: SendIo): Promise<null> {
  await io.github.updateIssue(action.repo, action.number, {
    state: action.target,
    stateReason: action.target === "closed" ? "completed" : "reopened",
  });
  return null;
}

export function describeGroupState(action: StateTarget): ActionDescription {
  return { action: "group", detail: action.target === "closed" ? "close (completed)" : "reopen" };
}

/** The audit detail of a state write. */
export function stateDetail(action: StateTarget): string {
  return action.target === "closed" ? "close" : "reopen";
}

type NewGroupIssue = {
  groupId: string;
  repo: string;
  title: string;
  body: string;
  labels: string[];
  hash: string;
};

/** A group's issue is created under an intent resolved by its marker: never a second one. */
export function groupCreateIntent(action: NewGroupIssue): IntentSpec {
  return {
    fields: { kind: "group_create", threatId: action.groupId, repo: action.repo },
    onFailure: "find-group-by-marker",
    settleLazily: false,
  };
}

/** What a group's issue is created with (its body carries the rendering's hash). */
function groupIssueFields(action: NewGroupIssue) {
  return {
    title: action.title,
    body: withRevision(action.body, action.hash),
    labels: action.labels,
    assignees: [],
  };
}

export function sendGroupCreate(action: NewGroupIssue, io: SendIo): Promise<IssueSnapshot> {
  return io.github.createIssue(action.repo, groupIssueFields(action));
}

/** A dry run's group issue as its create would answer, so what follows it can be planned. */
export function groupCreateAsAsked(action: NewGroupIssue, io: AskedIo): Promise<IssueSnapshot> {
  return Promise.resolve(createdAsAsked(io, null, { repo: action.repo, ...groupIssueFields(action) }));
}
