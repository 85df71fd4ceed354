import { GitHubError, type IssueSnapshot } from "../../github/index.js";
import { withIntent } from "../run/intents.js";
import { issueRecord } from "../transitions/issue-record.js";
import { resolveCreate } from "../run/recover.js";
import { markerFor } from "../render/index.js";
import { withRevision } from "../render/revision.js";
import { dropPending, updateThreat } from "../records/state-updates.js";
import { issueCreated } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";

/** GitHub's limit on a title (characters). */
const TITLE_MAX = 256;

/**
 * What a create falls back to when GitHub refuses the full body as invalid (422): the marker and
 * the revision line are kept, so the issue stays findable and is not rewritten (issue 6, item 9).
 */
export const MINIMAL_BODY_NOTE =
  "GitHub refused the full description of this threat; the platform holds it. This issue is still managed by threatbridge.";

function minimalBody(threatId: string): string {
  return `${MINIMAL_BODY_NOTE}\n\n${markerFor(threatId)}`;
}

/** A new issue for a threat, under a write-ahead intent so that a lost answer never duplicates it. */
export const createAction: ActionModule<ActionOf<"create">> = {
  kind: "create",
  // New issues come after verdicts and state changes; within the class, by severity (queue.ts).
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({ labels: action.labels, assignees: action.assignees }),
  async run(ctx, action) {
    const id = action.threatId;
    await withIntent(
      ctx,
      { kind: "create", threatId: id, repo: action.repo },
      async () => {
        const send = (title: string, body: string) =>
          ctx.github.createIssue(action.repo, {
            title,
            body: withRevision(body, action.hash),
            labels: action.labels,
            assignees: action.assignees,
          });
        let issue: IssueSnapshot;
        try {
          issue = await send(action.title, action.body);
        } catch (error) {
          // A 422 would be answered again to the same request: fall back once to a minimal
          // body. Its revision is the full content's, so the planner does not rewrite it.
          if (!(error instanceof GitHubError && error.code === "validation")) throw error;
          ctx.emit({ type: "created_minimal", threatId: id, detail: "GitHub refused the full body (422)" });
          issue = await send(action.title.slice(0, TITLE_MAX), minimalBody(id));
        }
        updateThreat(ctx, id, (r) => issueCreated(r, issueRecord(issue, action.hash)));
        dropPending(ctx, id);
        ctx.emit({ type: "created", threatId: id, issue: { repo: issue.repo, number: issue.number } });
      },
      {
        // A lost response: look for the marker before anything is sent again.
        resolve: (intent) => resolveCreate(ctx, intent),
        // The issue is recorded with the next commit (at the latest the next intent's, which must
        // be durable anyway): one fsync per new issue (issue 7, "POST + PUT + one fsync"). A crash
        // before it leaves the intent, which recovery resolves by the marker (recover.ts).
        settleLazily: true,
      },
    );
  },
};
