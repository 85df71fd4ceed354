import { z } from "zod";

/**
 * The part of GitHub's `issues` delivery the connector reads (GitHub's webhook payload: `action`,
 * `issue`, `repository`, `sender`). Loose objects: GitHub adds fields without notice.
 */
export const IssuesDelivery = z.looseObject({
  action: z.string().min(1),
  issue: z.looseObject({
    number: z.int().positive(),
    state: z.enum(["open", "closed"]),
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
