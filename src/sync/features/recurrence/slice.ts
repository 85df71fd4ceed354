import { z } from "zod";
import { jsonSliceOf, withJsonSlice, type Sliced } from "../types.js";

/**
 * The "recurrence" slice of a threat's record (stored in `feature_data`): `occurrence`, which
 * occurrence of the threat its issue is (`recurrence: new_issue`; absent means the first); `from`,
 * the issue of the previous occurrence (the new one's body names it), `noted` once the comment
 * naming the new issue is on the old one.
 */
export const RecurrenceSlice = z.object({
  occurrence: z.int().positive().optional(),
  from: z.object({ repo: z.string(), number: z.int().positive(), noted: z.boolean().optional() }).optional(),
});
export type RecurrenceSlice = z.infer<typeof RecurrenceSlice>;
export type RecurredFrom = NonNullable<RecurrenceSlice["from"]>;

export const RECURRENCE = "recurrence";

export function recurrenceOf(record: Sliced | undefined | null): RecurrenceSlice {
  return jsonSliceOf(record, RECURRENCE, (v) => RecurrenceSlice.safeParse(v).data) ?? {};
}

/** Which occurrence of the threat its issue is (1: the first). */
export function occurrenceOf(record: Sliced | undefined | null): number {
  return recurrenceOf(record).occurrence ?? 1;
}

/** The record with its slice changed (undefined removes a part; the first occurrence is not written). */
export function withRecurrence<R extends Sliced>(record: R, change: Partial<RecurrenceSlice>): R {
  const next: RecurrenceSlice = { ...recurrenceOf(record), ...change };
  const kept: RecurrenceSlice = {
    ...(next.occurrence !== undefined && next.occurrence > 1 ? { occurrence: next.occurrence } : {}),
    ...(next.from !== undefined ? { from: next.from } : {}),
  };
  return withJsonSlice(record, RECURRENCE, Object.keys(kept).length === 0 ? undefined : kept);
}
