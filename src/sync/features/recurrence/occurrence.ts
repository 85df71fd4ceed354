import { createHash } from "node:crypto";
import { markerFor } from "../../../shared/index.js";
import type { RenderedIssue } from "../../render/index.js";

/** A later occurrence's rendering: `Recurrence of owner/name#N` first, and its own marker. */
export function forOccurrence(
  base: { readonly issue: RenderedIssue; readonly hash: string },
  threatId: string,
  occurrence: number,
  previous: { repo: string; number: number },
): { readonly issue: RenderedIssue; readonly hash: string } {
  if (occurrence <= 1) return base;
  const line = `Recurrence of ${previous.repo}#${previous.number}`;
  let issue: RenderedIssue | undefined;
  let hash: string | undefined;
  return {
    get issue(): RenderedIssue {
      if (issue === undefined) {
        const rendered = base.issue;
        const body = rendered.body.replace(markerFor(threatId), markerFor(threatId, occurrence));
        issue = { ...rendered, body: `${line}\n\n${body}` };
      }
      return issue;
    },
    get hash(): string {
      hash ??= createHash("sha256")
        .update(base.hash)
        .update(`\n${occurrence}\n${line}`)
        .digest("hex")
        .slice(0, 32);
      return hash;
    },
  };
}
