import { z } from "zod";

/**
 * What every `issues` delivery is read for first: its action. Only a close or a reopen is read
 * further, so that the other actions are ignored whatever their issue shows (GitHub's webhook
 * schema leaves an issue's `state` and most of its fields optional in their payloads).
 */
export const IssuesAction = z.looseObject({ action: z.string().min(1) });

/**
 * The part of GitHub's `issues` delivery the connector reads (GitHub's webhook payload: `action`,
 * `issue`, `repository`, `sender`). Loose objects: GitHub adds fields without notice. The issue's
 * `state` is not needed: the action says it, and the issue is read again before anything is sent.
 */
export const IssuesDelivery = z.looseObject({
  action: z.string().min(1),
  issue: z.looseObject({
    number: z.int().positive(),
    body: z.string().nullish(),
  }),
  repository: z.looseObject({
    full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  }),
});
export type IssuesDelivery = z.infer<typeof IssuesDelivery>;

/**
 * Actions that may carry a person's verdict. The others (opened, edited, labeled, …) come by the
 * hundred while the connector writes its own issues, and the poll sees them anyway.
 */
export const VERDICT_ACTIONS: ReadonlySet<string> = new Set(["closed", "reopened"]);
