import { DAY_MS, utcDay } from "../../../shared/duration.js";
import type { SlaRecord, ThreatRecord } from "../../../state/index.js";
import type { SlaView } from "../../render/types.js";

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
  const { sla: current, ...rest } = after;
  if (input.durationMs === null) return rest;
  if (after.status !== UNSOLVED) return current ? { ...rest, sla: current } : rest;
  const reopened = before !== undefined && before.status !== UNSOLVED;
  if (!current || (reopened && input.restartOnReopen)) {
    const since = current ? input.nowMs : (input.detectedAtMs ?? input.nowMs);
    return { ...rest, sla: fresh(since, input.durationMs) };
  }
  const due = isoAt(Date.parse(current.since) + input.durationMs);
  if (due === current.due) return after;
  // A new due date (the severity changed): a breach of the old one no longer counts.
  const { breach: _old, ...kept } = current;
  return { ...rest, sla: { ...kept, due } };
}

/** The connector added the breach label: never again for this due date. */
export function slaBreachAdded(record: ThreatRecord): ThreatRecord {
  return record.sla ? { ...record, sla: { ...record.sla, breach: "added" } } : record;
}

/** A person removed the breach label: noted (logged once), and not fought over. */
export function slaBreachRemoved(record: ThreatRecord): ThreatRecord {
  return record.sla ? { ...record, sla: { ...record.sla, breach: "removed" } } : record;
}

/** The issue is in the weekly milestone of that title (or the repository has none: not tried again). */
export function slaMilestoneSet(record: ThreatRecord, title: string): ThreatRecord {
  return record.sla ? { ...record, sla: { ...record.sla, milestone: title } } : record;
}

export function dueMs(sla: SlaRecord): number {
  return Date.parse(sla.due);
}

function isBreached(sla: SlaRecord, nowMs: number): boolean {
  return nowMs >= dueMs(sla);
}

/** The breach label is due: an open issue past its due date that the connector has not labelled. */
export function breachDue(record: ThreatRecord, nowMs: number): boolean {
  const { sla, issue } = record;
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

/** What templates see of the SLA (`sla.due`, `sla.days_left`, `sla.breached`). */
export function slaView(sla: SlaRecord, nowMs: number): SlaView {
  const due = dueMs(sla);
  const daysLeft = Math.round((Date.parse(utcDay(due)) - Date.parse(utcDay(nowMs))) / DAY_MS);
  return { due: utcDay(due), daysLeft, breached: isBreached(sla, nowMs), since: sla.since };
}

/** An adopted issue's SLA start from its hidden line: a rebuilt state keeps the first start and due date. */
export function slaSinceRecovered(
  record: ThreatRecord,
  hiddenSince: string | null,
  milestone: string | null = null,
): ThreatRecord {
  const sla = record.sla;
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
  return { ...record, sla: placed ? { ...recovered, milestone } : recovered };
}
