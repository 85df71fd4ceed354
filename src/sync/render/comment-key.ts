import type { Intent } from "../../state/index.js";

/** The hidden line that makes a comment findable after a lost response: its intent's id. */
export function commentKey(intentId: string): string {
  return `<!-- threatbridge:comment=${intentId} -->`;
}

/** A comment as posted: its text and the key of the intent it was sent under. */
export function commentText(intent: Intent): string {
  return `${intent.body ?? ""}\n\n${commentKey(intent.id)}`;
}

/** Whether a comment's body carries the key of an intent. */
export function commentKeyed(body: string, intentId: string): boolean {
  return body.includes(commentKey(intentId));
}
