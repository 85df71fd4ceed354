import { DAY_MS, utcDay } from "../../../shared/duration.js";
import type { ThreatRecord } from "../../schema.js";
import type { FeatureIssueScopes } from "../../../config/template-scopes.js";
import { slaSinceLine } from "../../../shared/index.js";
import type { FeatureShown } from "../../render/index.js";
import { slaOf, withSla as withSlaSlice, type SlaRecord } from "./slice.js";

/** A threat's SLA, pure: due at its first `unsolved` sighting (or detection) plus its severity's duration. */

/** What a threat version brings to its SLA (the shell reads the config, the clock and the threat). */
export interface SlaInput {
  nowMs: number;
  /** The severity's duration in ms; null when the severity has none (no SLA). */
  durationMs: number | null;
  /** `fields.threat.detected_at` as epoch ms, when configured and parseable. */
  detectedAtMs: number | null;
  restartOnReopen: boolean;
}

const UNSOLVED = "unsolved";

/** The largest epoch ms a Date holds (ECMA-262): a due date past it (`999999999w`) is kept there. */
const MAX_TIME_MS = 8.64e15;

const isoAt = (ms: number): string =>
  new Date(Math.max(-MAX_TIME_MS, Math.min(MAX_TIME_MS, ms))).toISOString();

function fresh(sinceMs: number, durationMs: number): SlaRecord {
  return { since: isoAt(sinceMs), due: isoAt(sinceMs + durationMs) };
}

/** The record after a version, its SLA set, kept or dropped; a reopen keeps it unless `restartOnReopen`. */
export function withSla(
  before: ThreatRecord | undefined,
  after: ThreatRecord,
  input: SlaInput,
): ThreatRecord {
  const current = slaOf(after);
  if (input.durationMs === null) return current ? withSlaSlice(after, undefined) : after;
  if (after.status !== UNSOLVED) return after;
  const reopened = before !== undefined && before.status !== UNSOLVED;
  if (!current || (reopened && input.restartOnReopen)) {
    const since = current ? input.nowMs : (input.detectedAtMs ?? input.nowMs);
    return withSlaSlice(after, fresh(since, input.durationMs));
  }
  const due = isoAt(Date.parse(current.since) + input.durationMs);
  if (due === current.due) return after;
  // A new due date (the severity changed): a breach of the old one no longer counts.
  const { breach: _old, ...kept } = current;
  return withSlaSlice(after, { ...kept, due });
}

/** The connector added the breach label: never again for this due date. */
export function slaBreachAdded(record: ThreatRecord): ThreatRecord {
  const sla = slaOf(record);
  return sla ? withSlaSlice(record, { ...sla, breach: "added" }) : record;
}

/** A person removed the breach label: noted (logged once), and not fought over. */
export function slaBreachRemoved(record: ThreatRecord): ThreatRecord {
  const sla = slaOf(record);
  return sla ? withSlaSlice(record, { ...sla, breach: "removed" }) : record;
}

/** The issue is in the weekly milestone of that title (or the repository has none: not tried again). */
export function slaMilestoneSet(record: ThreatRecord, title: string): ThreatRecord {
  const sla = slaOf(record);
  return sla ? withSlaSlice(record, { ...sla, milestone: title }) : record;
}

export function dueMs(sla: SlaRecord): number {
  return Date.parse(sla.due);
}

function isBreached(sla: SlaRecord, nowMs: number): boolean {
  return nowMs >= dueMs(sla);
}

/** The breach label is due: an open issue past its due date that the connector has not labelled. */
export function breachDue(record: ThreatRecord, nowMs: number): boolean {
  const sla = slaOf(record);
  const issue = record.issue;
  return Boolean(sla && issue?.state === "open" && !record.gone && !sla.breach && isBreached(sla, nowMs));
}

/** The Sunday ending the (Monday-first) week of a due date, YYYY-MM-DD, in UTC. */
export function sundayOfWeek(ms: number): string {
  const day = new Date(ms).getUTCDay(); // 0 = Sunday
  return utcDay(ms + ((7 - day) % 7) * DAY_MS);
}

/** The weekly milestone of a due date: "SLA <Sunday of its due week>", due that Sunday. */
export function weeklyMilestone(sla: SlaRecord): { title: string; dueOn: string } {
  const sunday = sundayOfWeek(dueMs(sla));
  return { title: `SLA ${sunday}`, dueOn: sunday };
}

/** What a template names of the SLA that changes with the clock alone (a day passing). */
const CLOCK_NAMES = /\b(days_left|breached)\b/;

/**
 * What a threat's issue shows of its SLA: the built-in body its due day (what changes with the
 * clock, days left and breached, would rewrite every issue daily: a breach shows as the breach
 * label instead), after the marker the hidden start line (a lost state does not restart it), and
 * templates `sla.due`, `sla.days_left`, `sla.breached` (`sla` null for a threat without one).
 */
export function slaShown(sla: SlaRecord | undefined, nowMs: number): FeatureShown {
  if (!sla) return { scope: { sla: null } };
  const due = dueMs(sla);
  const day = utcDay(due);
  const daysLeft = Math.round((Date.parse(day) - Date.parse(utcDay(nowMs))) / DAY_MS);
  const breached = isBreached(sla, nowMs);
  const scope: FeatureIssueScopes["sla"] = { due: day, days_left: daysLeft, breached };
  return {
    lines: [`**Due: ${day}**`],
    hidden: [slaSinceLine(sla.since)],
    scope: { sla: scope },
    content: { slaDue: day, slaSince: sla.since },
    clock: { names: CLOCK_NAMES, content: { slaClock: { daysLeft, breached } } },
    dueDay: day,
  };
}

/** An adopted issue's SLA start from its hidden line: a rebuilt state keeps the first start and due date. */
export function slaSinceRecovered(
  record: ThreatRecord,
  hiddenSince: string | null,
  milestone: string | null = null,
): ThreatRecord {
  const sla = slaOf(record);
  if (!sla) return record;
  const sinceMs = hiddenSince === null ? Number.NaN : Date.parse(hiddenSince);
  const earlier = hiddenSince !== null && hiddenSince < sla.since && Number.isFinite(sinceMs);
  const { breach: _unknown, ...kept } = sla;
  const recovered: SlaRecord = earlier
    ? { ...kept, since: hiddenSince, due: isoAt(sinceMs + Date.parse(sla.due) - Date.parse(sla.since)) }
    : sla;
  // The issue is in its weekly milestone already: the sweep need not put it there again.
  const placed =
    milestone !== null && milestone === weeklyMilestone(recovered).title && sla.milestone === undefined;
  if (!earlier && !placed) return record;
  return withSlaSlice(record, placed ? { ...recovered, milestone } : recovered);
}
