import { z } from "zod";

/** An `issues` delivery's action, read first: only a close or a reopen is read further. */
export const IssuesAction = z.looseObject({ action: z.string().min(1) });

/** The part of an `issues` delivery the connector reads (loose: GitHub adds fields); the issue is read again before any write. */
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

/** Actions that may carry a person's verdict; the rest the poll sees anyway. */
export const VERDICT_ACTIONS: ReadonlySet<string> = new Set(["closed", "reopened"]);
