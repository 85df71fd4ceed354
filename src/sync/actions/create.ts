import { GitHubError, type IssueSnapshot } from "../../github/index.js";
import type { EngineEvent } from "../../shared/index.js";
import { markerFor } from "../render/index.js";
import { withRevision } from "../../shared/index.js";
import { issueRecord } from "../transitions/issue-record.js";
import { issueCreated } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf, type SendIo } from "./types.js";

/** GitHub's limit on a title (characters). */
const TITLE_MAX = 256;

/** A create's body when GitHub refuses the full one (422): marker and revision kept, so it stays findable. */
const MINIMAL_BODY_NOTE =
  "GitHub refused the full description of this threat; the platform holds it. This issue is still managed by threatbridge.";

function minimalBody(threatId: string): string {
  return `${MINIMAL_BODY_NOTE}\n\n${markerFor(threatId)}`;
}

/** The number of the milestone a feature asked the issue to go into, made on demand; null without one. */
async function milestoneFor(
  repo: string,
  wanted: { title: string; dueOn: string },
  io: SendIo,
): Promise<{ number: number; created: boolean } | null> {
  return io.workflow ? io.workflow.milestoneNumber(repo, wanted.title, wanted.dueOn) : null;
}

interface CreateAnswer {
  issue: IssueSnapshot;
  minimal: boolean;
  milestone: { number: number; created: boolean } | null;
}

/** A new issue for a threat, under a write-ahead intent so that a lost answer never duplicates it. */
export const createAction: ActionModule<ActionOf<"create">, CreateAnswer> = {
  kind: "create",
  // New issues come after verdicts and state changes; within the class, by severity (queue.ts).
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({ labels: action.labels, assignees: action.assignees }),
  // The weekly milestone the issue is created in (a feature asked for it), made first where missing.
  milestoneOf: (action) =>
    action.milestone === undefined ? null : { repo: action.repo, title: action.milestone.title },
  intent: (action) => ({
    fields: { kind: "create", threatId: action.threatId, repo: action.repo },
    // A lost response: the issue is looked for by its marker before anything is sent again.
    onFailure: "find-by-marker",
    // Recorded with the next commit: a crash before it leaves the intent, resolved by the marker.
    settleLazily: true,
  }),
  async send(action, io) {
    const milestone = action.milestone ? await milestoneFor(action.repo, action.milestone, io) : null;
    const send = (title: string, body: string) =>
      io.github.createIssue(action.repo, {
        title,
        body: withRevision(body, action.hash),
        labels: action.labels,
        assignees: action.assignees,
        ...(milestone ? { milestone: milestone.number } : {}),
      });
    try {
      return { issue: await send(action.title, action.body), minimal: false, milestone };
    } catch (error) {
      // A 422 would come again: fall back once to a minimal body, revision of the full content.
      if (!(error instanceof GitHubError && error.code === "validation")) throw error;
      return {
        issue: await send(action.title.slice(0, TITLE_MAX), minimalBody(action.threatId)),
        minimal: true,
        milestone,
      };
    }
  },
  settle(action, { issue, minimal, milestone }) {
    const id = action.threatId;
    const events: EngineEvent[] = [];
    if (minimal)
      events.push({ type: "created_minimal", threatId: id, detail: "GitHub refused the full body (422)" });
    const at = { repo: issue.repo, number: issue.number };
    if (milestone?.created && action.milestone)
      events.push({ type: "milestone_created", threatId: id, issue: at, detail: action.milestone.title });
    events.push({ type: "created", threatId: id, issue: at });
    // In the milestone asked for from the start (where there are none, taken as placed).
    const title = action.milestone?.title;
    return {
      record: (r) => issueCreated(r, issueRecord(issue, action.hash)),
      found: title === undefined ? issue : { ...issue, milestone: title },
      events,
      finished: "pending",
      commit: "none",
    };
  },
};
