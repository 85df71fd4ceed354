import type { CommentRecord, EventRecord, IssueRecord } from "./store.js";
import type { StandInComment, StandInEvent, StandInIssue } from "./types.js";
import { isoSeconds } from "./shapes.js";

/** Copies handed to tests, so that they can never change the stand-in's state by accident. */
export function issueSnapshot(i: IssueRecord, comments: number): StandInIssue {
  return {
    id: i.id,
    number: i.number,
    title: i.title,
    body: i.body,
    state: i.state,
    stateReason: i.stateReason,
    labels: [...i.labels],
    assignees: [...i.assignees],
    user: i.user,
    isPullRequest: i.isPullRequest,
    comments,
    createdAt: isoSeconds(i.createdAt),
    updatedAt: isoSeconds(i.updatedAt),
    closedAt: i.closedAt === null ? null : isoSeconds(i.closedAt),
    closedBy: i.closedBy,
    milestone: i.milestone ?? null,
    type: i.type ?? null,
    parentId: i.parentId ?? null,
  };
}

export function commentSnapshot(c: CommentRecord): StandInComment {
  return {
    id: c.id,
    issueNumber: c.issueNumber,
    body: c.body,
    user: c.user,
    viaApp: c.viaApp,
    createdAt: isoSeconds(c.createdAt),
    updatedAt: isoSeconds(c.updatedAt),
  };
}

export function eventSnapshot(e: EventRecord): StandInEvent {
  return {
    id: e.id,
    issueNumber: e.issueNumber,
    event: e.event,
    actor: e.actor.login,
    viaApp: e.actor.viaApp,
    createdAt: isoSeconds(e.createdAt),
    ...(e.stateReason === undefined ? {} : { stateReason: e.stateReason }),
    ...(e.label === undefined ? {} : { label: { ...e.label } }),
    ...(e.rename === undefined ? {} : { rename: { ...e.rename } }),
  };
}
