import { commentKey } from "../../shared/index.js";
import type { Intent } from "../schema.js";

/** A comment as posted: its text and the key of the intent it was sent under. */
export function commentText(intent: Intent): string {
  return `${intent.body ?? ""}\n\n${commentKey(intent.id)}`;
}
