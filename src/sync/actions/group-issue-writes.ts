import type { EngineEvent } from "../../shared/index.js";
import type { ActionDescription, SendIo } from "./types.js";

/**
 * What the writes to a group's own issue share, in parent and in single mode: the audit event
 * (`group`, with what was written) and the change of the issue's state, which follows its members.
 */

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
  return { detail: action.target === "closed" ? "close (completed)" : "reopen" };
}

/** The audit detail of a state write. */
export function stateDetail(action: StateTarget): string {
  return action.target === "closed" ? "close" : "reopen";
}
