import { z } from "zod";
import { jsonSliceOf, withJsonSlice, type Sliced } from "../types.js";
import { isRecord } from "../../../shared/json.js";

/**
 * A person accepted the risk (closed the issue "not planned" with `acceptance.label`): when it
 * ends (ISO), who and when, and how far its steps went: `accepted` (the platform holds it),
 * `announced` (the comment naming its end is on the issue), `warned` (the `warn_before` comment
 * too), `expired` (the platform holds `unsolved` again; the issue is reopened or recurs next).
 */
export const Acceptance = z.object({
  until: z.string(),
  since: z.string(),
  by: z.string(),
  step: z.enum(["accepted", "announced", "warned", "expired"]),
});
export type Acceptance = z.infer<typeof Acceptance>;

/**
 * The "acceptance" slice of a threat's record (stored in `feature_data`): `held`, the acceptance;
 * `sought`, the `updatedAt` of the threat's version whose issue was searched for the connector's
 * own acceptance comments (its acceptance unknown to the state: a lost state rebuilt from the
 * streams), so that the search is made once per version, not at every plan.
 */
export const AcceptanceSlice = z.object({ held: Acceptance.optional(), sought: z.string().optional() });
export type AcceptanceSlice = z.infer<typeof AcceptanceSlice>;

export const ACCEPTANCE = "acceptance";

/**
 * Where the store keeps the acceptance's time (state/threat-queries.ts `SliceTime`: one a
 * feature), so that its clock and its counts are index ranges: its end, `held.until`. The end is
 * the one time every held acceptance has; the warning's (the end less `acceptance.warn_before`, a
 * setting the store does not know) is derived from it by the clock, while a declared warning time
 * could not give the end back. `unless` names a key the slice never holds: no key takes an
 * acceptance off its clock (an acceptance that ends is forgotten, its `held` removed).
 */
export const ACCEPTANCE_TIME = { due: "held.until", unless: "held.off" } as const;

function sliceOfRecord(record: Sliced | undefined | null): AcceptanceSlice {
  return jsonSliceOf(record, ACCEPTANCE, (v) => plainSlice(v) ?? AcceptanceSlice.safeParse(v).data) ?? {};
}

const STEPS: ReadonlySet<unknown> = new Set(Acceptance.shape.step.options);

/**
 * A slice as the engine writes it (no other key, each field of its type), taken without the
 * schema: `status` reads every stored acceptance, and the schema's parse was half of its listing
 * (1,000 acceptances). The same value the schema gives back; undefined for anything else, which
 * the schema then reads (it strips an unknown key, or refuses a wrong shape).
 */
function plainSlice(value: unknown): AcceptanceSlice | undefined {
  if (!isRecord(value)) return undefined;
  const { held, sought, ...other } = value;
  if (Object.keys(other).length > 0 || (sought !== undefined && typeof sought !== "string")) return undefined;
  if (held === undefined) return sought === undefined ? {} : { sought };
  if (!isRecord(held)) return undefined;
  const { until, since, by, step, ...extra } = held;
  if (typeof until !== "string" || typeof since !== "string" || typeof by !== "string") return undefined;
  if (!STEPS.has(step) || Object.keys(extra).length > 0) return undefined;
  const plain = { until, since, by, step: step as Acceptance["step"] };
  return sought === undefined ? { held: plain } : { held: plain, sought };
}

/** The risk acceptance the record holds, or undefined. */
export function acceptanceOf(record: Sliced | undefined | null): Acceptance | undefined {
  return sliceOfRecord(record).held;
}

/** The version whose issue was searched for the connector's acceptance comments, or undefined. */
export function acceptanceSoughtOf(record: Sliced | undefined | null): string | undefined {
  return sliceOfRecord(record).sought;
}

/** The acceptance of a stored slice's text (ThreatRecords.scanSlices gives it), or undefined. */
export function acceptanceOfSlice(text: string): Acceptance | undefined {
  return acceptanceOf({ slices: { [ACCEPTANCE]: text } });
}

/** The record with its slice changed: `held` or `sought` set (undefined removes it). */
export function withAcceptance<R extends Sliced>(record: R, change: Partial<AcceptanceSlice>): R {
  const next: AcceptanceSlice = { ...sliceOfRecord(record), ...change };
  const kept = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined));
  return withJsonSlice(record, ACCEPTANCE, Object.keys(kept).length === 0 ? undefined : kept);
}
