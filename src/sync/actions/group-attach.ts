import type { AttachResult } from "../../github/index.js";
import { parentChanged } from "../transitions/group.js";
import { QueueClass, type ActionModule, type ActionOf, type Settlement } from "./types.js";

/** A member attached to its parent by issue id, never tried twice; after every other write of the cycle. */

export const memberIdAction: ActionModule<ActionOf<"member_id">, number | null> = {
  kind: "member_id",
  priority: () => QueueClass.other,
  // One read (GET), no write.
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({ action: "attach", detail: `to ${action.groupId} (after one read of its id)` }),
  send: async (action, io) => (await io.github.getIssue(action.repo, action.number))?.id ?? null,
  settle: (action, id) => ({
    ...(id === null
      ? {}
      : {
          record: (r) =>
            r.issue && r.issue.repo === action.repo && r.issue.number === action.number
              ? { ...r, issue: { ...r.issue, id } }
              : r,
        }),
    events: [],
    commit: "checkpoint",
  }),
};

/** GitHub's answer to an attach, and where it was "unavailable" whether the parent is still there. */
interface AttachOutcome {
  result: AttachResult;
  /** Read only after an "unavailable" answer: GitHub answers 404 alike for no sub-issues and no parent. */
  parentGone: boolean;
}

function attachSettlement(action: ActionOf<"attach">, { result, parentGone }: AttachOutcome): Settlement {
  const group = (change: Parameters<typeof parentChanged>[2]) => ({
    id: action.groupId,
    change: (g: Parameters<typeof parentChanged>[0]) => parentChanged(g, action.repo, change),
  });
  if (!result.available) {
    if (parentGone)
      return { group: group((p) => ({ ...p, refused: "deleted" })), events: [], commit: "checkpoint" };
    return {
      group: group((p) => ({ ...p, checklistOnly: "unavailable" })),
      notice: {
        level: "warn",
        once: `unavailable:${action.repo}`,
        fields: { repo: action.repo, status: result.status, message: result.message },
        message:
          "this repository has no sub-issues; its groups' parents list their members in the checklist only",
      },
      events: [],
      commit: "checkpoint",
    };
  }
  if (result.outcome === "parent_full") {
    return {
      group: group((p) => ({ ...p, checklistOnly: "full" })),
      notice: {
        level: "warn",
        once: `full:${action.groupId}:${action.repo}`,
        fields: { group: action.groupId, issue: `${action.repo}#${action.parentNumber}` },
        message: "a parent holds GitHub's 100 sub-issues; further members are in its checklist only",
      },
      events: [],
      commit: "checkpoint",
    };
  }
  // A person put the issue under another parent, or GitHub refuses it: it is left as it is.
  const leftAlone = result.outcome === "has_other_parent" || result.outcome === "refused";
  return {
    group: group((p) => ({ ...p, attached: [...p.attached, action.threatId] })),
    ...(leftAlone
      ? {
          notice: {
            level: "info" as const,
            fields: {
              group: action.groupId,
              threat_id: action.threatId,
              issue: `${action.repo}#${action.childNumber}`,
              message: result.message,
            },
            message: "a member was not attached to its group's parent; it stays in the checklist",
          },
        }
      : {}),
    events:
      result.outcome === "attached"
        ? [
            {
              type: "attached",
              threatId: action.threatId,
              issue: { repo: action.repo, number: action.parentNumber },
              detail: `${action.repo}#${action.childNumber}`,
            },
          ]
        : [],
    commit: "checkpoint",
  };
}

export const attachAction: ActionModule<ActionOf<"attach">, AttachOutcome> = {
  kind: "attach",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  // A dry run's attach to a parent it would create has no parent number yet (0).
  describe: (action) => ({
    action: "attach",
    issue: action.childNumber,
    detail:
      action.parentNumber === 0
        ? `to the new parent of ${action.groupId}`
        : `to ${action.repo}#${action.parentNumber}`,
  }),
  // A repeated attach is answered "already attached": no intent.
  async send(action, io) {
    if (!io.workflow) throw new Error("sub-issues need the workflow client");
    const result = await io.workflow.addSubIssue(
      action.repo,
      action.parentNumber,
      action.childId,
      action.replaceParent ? { replaceParent: true } : {},
    );
    const parentGone =
      !result.available && (await io.github.getIssue(action.repo, action.parentNumber)) === null;
    return { result, parentGone };
  },
  asAsked: () => Promise.resolve({ result: { available: true, outcome: "attached" }, parentGone: false }),
  settle: attachSettlement,
};
