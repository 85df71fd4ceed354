import type { Intent } from "../schema.js";
import { commentKeyed } from "../../shared/index.js";
import { commentText } from "../render/comment-key.js";
import type { IntentSpec, SendIo } from "../actions/types.js";
import type { FeatureAction } from "../plan/plan.js";

/** A feature's step comment under a keyed intent: recovery looks for the key first, so it posts once, ever. */
export interface StepComment extends FeatureAction {
  repo: string;
  number: number;
  body: string;
}

/** Posts the step's comment under its intent's key; a failure with the key found on the issue is a success. */
export async function postStepComment(
  action: StepComment,
  io: SendIo,
  intent: Intent | null,
): Promise<{ posted: true }> {
  if (intent === null) throw new Error("a step's comment goes out under its intent");
  try {
    await io.github.createComment(action.repo, action.number, commentText(intent));
  } catch (error) {
    const comments = await io.github.listComments(action.repo, action.number);
    if (!comments.some((c) => commentKeyed(c.body, intent.id))) throw error;
  }
  return { posted: true };
}

/** The step comment's intent: a `comment` intent naming its step, which recovery finds by its key. */
export function stepCommentIntent(action: StepComment, step: "accept" | "warn" | "recur"): IntentSpec {
  return {
    fields: {
      kind: "comment",
      threatId: action.threatId,
      repo: action.repo,
      number: action.number,
      body: action.body,
      step,
    },
    // Posted or not is found by its key: only a comment GitHub surely refused is dropped.
    onFailure: "keep-unless-refused",
    settleLazily: false,
  };
}
