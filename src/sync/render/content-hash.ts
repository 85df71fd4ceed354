import { createHash } from "node:crypto";
import type { RenderedIssue } from "./types.js";

/**
 * sha256 (hex) of what an issue shows: title, body and labels (sorted, so label order does not
 * matter). The planner compares it with the stored hash so that unchanged content costs no write.
 */
export function contentHash(issue: RenderedIssue): string {
  const labels = [...issue.labels].sort();
  // JSON keeps the three parts unambiguous (no separator a title could contain).
  return createHash("sha256")
    .update(JSON.stringify([issue.title, issue.body, labels]), "utf8")
    .digest("hex");
}
