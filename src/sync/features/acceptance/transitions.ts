import { endOfTypedDay } from "../../../shared/duration.js";
import type { ThreatRecord } from "../../schema.js";
import { acceptanceOf, withAcceptance, type Acceptance } from "./slice.js";

/** Pure transitions of a risk acceptance (contract, "Risk acceptance"). */

export type { Acceptance };

/** What people type on the issue to set the end: "Accepted until: YYYY-MM-DD" (case and spacing free). */
const UNTIL = /accepted\s+until:?\s*(\S+)/gi;

/** The end an acceptance gets, and why a typed one was not taken (null when it was, or none was typed). */
export interface AcceptanceEnd {
  until: number;
  ignored: string | null;
}

/**
 * The end of an acceptance closed at `now`, from the newest comment naming a date; a date past
 * the max, in the past, unreadable or ambiguous falls back to `now + defaultMs` (capped at max).
 */
export function acceptanceEnd(
  comments: readonly string[],
  now: number,
  defaultMs: number,
  maxMs: number,
): AcceptanceEnd {
  const fallback = now + Math.min(defaultMs, maxMs);
  for (let i = comments.length - 1; i >= 0; i -= 1) {
    const typed = [...(comments[i] ?? "").matchAll(UNTIL)].map((m) => (m[1] ?? "").replace(/[.,;)]+$/, ""));
    if (typed.length === 0) continue;
    const distinct = [...new Set(typed)];
    if (distinct.length > 1) {
      return { until: fallback, ignored: `one comment names two dates (${distinct.slice(0, 2).join(", ")})` };
    }
    const text = distinct[0] ?? "";
    const end = endOfTypedDay(text);
    if (end === null)
      return { until: fallback, ignored: `"${text.slice(0, 40)}" is not a date (YYYY-MM-DD)` };
    if (end <= now) return { until: fallback, ignored: `${text} is in the past` };
    if (end > now + maxMs) return { until: fallback, ignored: `${text} is later than acceptance.max allows` };
    return { until: end, ignored: null };
  }
  return { until: fallback, ignored: null };
}

/** The platform holds `accepted`: the acceptance starts, its issue closed as the person left it. */
export function riskAccepted(
  record: ThreatRecord,
  answer: { status: string; updatedAt: string },
  acceptance: Omit<Acceptance, "step">,
): ThreatRecord {
  const closed: ThreatRecord = {
    ...record,
    status: answer.status,
    updatedAt: answer.updatedAt,
    ...(record.issue ? { issue: { ...record.issue, state: "closed" as const } } : {}),
  };
  return withAcceptance(closed, { held: { ...acceptance, step: "accepted" } });
}

/** A step's comment is on the issue: the acceptance's end (`accept`), its warning (`warn`); another step's is not its own. */
export function stepCommented(record: ThreatRecord, step: string): ThreatRecord {
  if (step !== "accept" && step !== "warn") return record;
  const acceptance = acceptanceOf(record);
  if (!acceptance) return record;
  const next = step === "accept" ? "announced" : "warned";
  // A later step already taken is not undone by a late resolution of an earlier one.
  if (acceptance.step === "expired" || (acceptance.step === "warned" && next === "announced")) return record;
  return withAcceptance(record, { held: { ...acceptance, step: next } });
}

/** The acceptance ended: the platform holds `unsolved` again (its answer). */
export function riskExpired(
  record: ThreatRecord,
  answer: { status: string; updatedAt: string },
): ThreatRecord {
  const acceptance = acceptanceOf(record);
  const answered: ThreatRecord = { ...record, status: answer.status, updatedAt: answer.updatedAt };
  return acceptance ? withAcceptance(answered, { held: { ...acceptance, step: "expired" } }) : answered;
}

/** The acceptance is over (its issue reopened or recurred, or a person changed the issue): forgotten. */
function acceptanceEnded(record: ThreatRecord): ThreatRecord {
  return acceptanceOf(record) ? withAcceptance(record, { held: undefined }) : record;
}

/** What a status seen makes of an acceptance, or null: another status before the end ends it. */
export function acceptanceAfterStatus(
  record: ThreatRecord,
  status: string,
  now: number,
): ThreatRecord | null {
  const acceptance = acceptanceOf(record);
  if (!acceptance) return null;
  if (acceptance.step === "expired") return record.issue?.state === "open" ? acceptanceEnded(record) : null;
  if (status === "accepted") return null;
  if (now >= Date.parse(acceptance.until) && status === "unsolved") {
    return withAcceptance(record, { held: { ...acceptance, step: "expired" } });
  }
  return acceptanceEnded(record);
}

/** Whether a due step waits on the acceptance at `now`: its comment, its warning, or its end. */
export function acceptanceDue(acceptance: Acceptance, now: number, warnMs: number): boolean {
  return now >= acceptanceNextAt(acceptance, warnMs);
}

/** When the acceptance's next step is due (epoch ms): its comment and its end at once. */
export function acceptanceNextAt(acceptance: Acceptance, warnMs: number): number {
  const until = Date.parse(acceptance.until);
  switch (acceptance.step) {
    case "accepted":
    case "expired":
      return Number.NEGATIVE_INFINITY;
    case "announced":
      return until - warnMs;
    case "warned":
      return until;
  }
}

/** An acceptance recovered from the connector's comments: `since` is when it was found, `by` says recovered. */
export function acceptanceRecovered(
  record: ThreatRecord,
  version: string,
  told: { until: string; warned: boolean } | null,
  foundAt: string,
): ThreatRecord {
  const sought = withAcceptance(record, { sought: version });
  const end = told === null ? null : endOfTypedDay(told.until);
  if (end === null || acceptanceOf(record)) return sought;
  return withAcceptance(sought, {
    held: {
      until: new Date(end).toISOString(),
      since: foundAt,
      by: "(recovered from the issue's comments)",
      step: told?.warned === true ? "warned" : "announced",
    },
  });
}
