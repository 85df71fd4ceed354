import { retiredGroupBody } from "../../shared/index.js";
import type { GroupRecord, Intent } from "../schema.js";
import type { RetireAction } from "../groups/retire-plan.js";
import { commentText } from "../render/comment-key.js";
import { groupRetired } from "../transitions/group.js";
import { groupWritten } from "./group-issue.js";
import { QueueClass, type ActionModule, type ActionOf, type SendIo } from "./types.js";

/** Retiring an old group issue: one idempotent close, then a comment under a keyed intent (never twice). */

function retired(action: RetireAction, step: "closed" | "noted"): (g: GroupRecord) => GroupRecord {
  return (g) => groupRetired(g, action.issueKind, action.repo, step);
}

/** The issue read, its marker retired, closed as not planned; `gone` when it no longer exists. */
async function close(action: ActionOf<"group_retire">, io: SendIo): Promise<{ gone: boolean }> {
  const current = await io.github.getIssue(action.repo, action.number);
  if (current === null) return { gone: true };
  await io.github.updateIssue(action.repo, action.number, {
    body: retiredGroupBody(current.body ?? ""),
    state: "closed",
    stateReason: "not_planned",
  });
  return { gone: false };
}

export const groupRetireAction: ActionModule<ActionOf<"group_retire">, { gone: boolean }> = {
  kind: "group_retire",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ action: "group", detail: "close (not planned): grouping changed" }),
  send: close,
  asAsked: () => Promise.resolve({ gone: false }),
  settle: (action, outcome) => ({
    // A deleted issue has nothing left to retire, nor to comment on.
    group: { id: action.groupId, change: retired(action, outcome.gone ? "noted" : "closed") },
    events: outcome.gone ? [] : [groupWritten(action, "retire")],
    commit: "checkpoint",
  }),
};

async function post(
  action: ActionOf<"group_retire_note">,
  io: SendIo,
  intent: Intent | null,
): Promise<{ posted: true }> {
  if (intent === null) throw new Error("a retired group issue's comment goes out under its intent");
  await io.github.createComment(action.repo, action.number, commentText(intent));
  return { posted: true };
}

export const groupRetireNoteAction: ActionModule<ActionOf<"group_retire_note">, { posted: true }> = {
  kind: "group_retire_note",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({
    action: "comment",
    detail: "comment: grouping changed, names the issues carrying its threats",
  }),
  intent: (action) => ({
    fields: {
      kind: "comment",
      threatId: action.groupId,
      repo: action.repo,
      number: action.number,
      body: action.body,
    },
    // Posted or not is found by its key: only a comment GitHub surely refused is dropped.
    onFailure: "keep-unless-refused",
    settleLazily: false,
  }),
  send: post,
  asAsked: () => Promise.resolve({ posted: true }),
  settle: (action) => ({
    group: { id: action.groupId, change: retired(action, "noted") },
    events: [
      { type: "commented", threatId: action.groupId, issue: { repo: action.repo, number: action.number } },
    ],
    commit: "none",
  }),
};
