import type { EngineEvent } from "../../shared/index.js";
import type { Intent } from "../../state/index.js";
import { commentKeyed } from "../../shared/index.js";
import { commentText } from "../render/comment-key.js";
import { stepCommented } from "../transitions/acceptance.js";
import { QueueClass, type ActionModule, type ActionOf, type SendIo } from "./types.js";

/**
 * A comment that is a step of its own: the end of a risk acceptance (`accept`), the warning before
 * it (`warn_expiry`), the note on an old issue naming its recurrence (`recur`). Each goes out under
 * an intent whose id is the comment's key: after a lost answer or a crash, recovery looks for the
 * key before anything is posted again (run/recover.ts), so each is on the issue once, ever.
 */

type Commenting = ActionOf<"step_comment"> | ActionOf<"warn_expiry">;

async function post(action: Commenting, io: SendIo, intent: Intent | null): Promise<{ posted: true }> {
  if (intent === null) throw new Error("a step's comment goes out under its intent");
  try {
    await io.github.createComment(action.repo, action.number, commentText(intent));
  } catch (error) {
    const comments = await io.github.listComments(action.repo, action.number);
    if (!comments.some((c) => commentKeyed(c.body, intent.id))) throw error;
  }
  return { posted: true };
}

function intentOf(action: Commenting, step: "accept" | "warn" | "recur") {
  return {
    fields: {
      kind: "comment" as const,
      threatId: action.threatId,
      repo: action.repo,
      number: action.number,
      body: action.body,
      step,
    },
    // Posted or not is found by its key: only a comment GitHub surely refused is dropped.
    onFailure: "keep-unless-refused" as const,
    settleLazily: false,
  };
}

export const stepCommentAction: ActionModule<ActionOf<"step_comment">, { posted: true }> = {
  kind: "step_comment",
  // A recurrence's note comes between its new issue and that issue's link: the create's class, as
  // the queue derives it from the record (queue.ts `dueClass`: a link not yet written).
  priority: (action) => (action.step === "recur" ? QueueClass.create : QueueClass.other),
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({
    detail: action.step === "accept" ? "the acceptance's end" : "names the new issue",
  }),
  intent: (action) => intentOf(action, action.step),
  send: post,
  settle(action) {
    const events: EngineEvent[] = [
      { type: "commented", threatId: action.threatId, issue: { repo: action.repo, number: action.number } },
    ];
    return { record: (r) => stepCommented(r, action.step), events, commit: "none" };
  },
};

export const warnExpiryAction: ActionModule<ActionOf<"warn_expiry">, { posted: true }> = {
  kind: "warn_expiry",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ detail: "the acceptance ends soon" }),
  intent: (action) => intentOf(action, "warn"),
  send: post,
  settle(action) {
    const events: EngineEvent[] = [
      {
        type: "expiry_warned",
        threatId: action.threatId,
        issue: { repo: action.repo, number: action.number },
      },
    ];
    return { record: (r) => stepCommented(r, "warn"), events, commit: "none" };
  },
};
