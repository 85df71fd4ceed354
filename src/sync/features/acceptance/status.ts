import type { FeatureIndex, FeatureListing } from "../types.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import { compareIso } from "../../../shared/iso-time.js";
import { ACCEPTANCE, ACCEPTANCE_TIME, acceptanceOf, acceptanceOfSlice, type Acceptance } from "./slice.js";

/** Threat id → its risk acceptance, for the threats that hold one (from the engine's index). */
export function heldAcceptances(index: Pick<FeatureIndex, "sliceBy">): ReadonlyMap<string, Acceptance> {
  return index.sliceBy(ACCEPTANCE, acceptanceOfSlice, acceptanceOf);
}

/** A risk acceptance as `status` lists it (contract, "Risk acceptance": "`status` lists acceptances and their ends"). */
export interface AcceptanceLine {
  threatId: string;
  issue: string | null;
  /** Its end (ISO). */
  until: string;
  by: string;
  /** How far it went: accepted, announced (its end is commented), warned, expired. */
  step: string;
}

/** The acceptances the state holds, soonest end first (only the records with an acceptance slice are read). */
export function acceptanceLines(threats: ThreatRecords): AcceptanceLine[] {
  const lines: AcceptanceLine[] = [];
  threats.scanSlices(ACCEPTANCE, (threatId, slice, found) => {
    const a = acceptanceOfSlice(slice);
    if (!a) return;
    const issue = found ? `${found.repo}#${found.number}` : null;
    lines.push({ threatId, issue, until: a.until, by: a.by, step: a.step });
  });
  // By instant, not text (src/shared/iso-time.ts): `…:05Z` sorts after `…:05.500Z` as text.
  return lines.sort((x, y) => compareIso(x.until, y.until));
}

/** The `status` text lines of the acceptances (the first 20, then how many more). */
export function formatAcceptances(lines: readonly AcceptanceLine[]): string {
  const shown = lines
    .slice(0, 20)
    .map(
      (l) =>
        `\n            ${l.issue ?? `threat ${l.threatId}`} until ${l.until.slice(0, 10)} (by ${l.by}, ${l.step})`,
    )
    .join("");
  const more = lines.length > 20 ? `\n            and ${lines.length - 20} more (--json lists all)` : "";
  return `accepted:   ${lines.length} risk acceptances${shown}${more}`;
}

/** `status`: the acceptances under `acceptances` in the JSON report, and their text lines when there are any. */
export function acceptanceListing(threats: ThreatRecords): FeatureListing {
  const lines = acceptanceLines(threats);
  return { key: "acceptances", items: lines, text: lines.length > 0 ? formatAcceptances(lines) : null };
}

const WEEK_MS = 7 * 86_400_000;

type AcceptanceCounts = {
  /** Acceptances the platform holds (every step before the end's `unsolved` was sent). */
  held: number;
  /** Of them, those that end within 7 days (or are past their end, with the expiry still to send). */
  endingWithin7Days: number;
};

/** What `/metrics` gives of the acceptances held (from the engine's index of them: no record built). */
export function acceptanceCounts(
  acceptances: Iterable<{ until: string; step: string }>,
  nowMs: number,
): AcceptanceCounts {
  const counts: AcceptanceCounts = { held: 0, endingWithin7Days: 0 };
  for (const a of acceptances) {
    if (a.step === "expired") continue;
    counts.held += 1;
    if (Date.parse(a.until) - nowMs <= WEEK_MS) counts.endingWithin7Days += 1;
  }
  return counts;
}

/** An acceptance whose end was sent is not held, whatever its end. */
const ENDED = { path: "held.step", values: ["expired"] } as const;

/**
 * The counts of `status` and `/metrics`, from the stored acceptances' ends (ACCEPTANCE_TIME): those
 * that end within 7 days are read (an index range where the store has the ends), with the expired
 * ones and those without a readable end; the others are only counted, as held (a slice with a
 * readable end is one the engine wrote: an acceptance). No threat row read, no record built.
 */
export function storedAcceptanceCounts(threats: ThreatRecords, nowMs: number): AcceptanceCounts {
  const read: Acceptance[] = [];
  const later = threats.slicesDueBy(
    ACCEPTANCE,
    ACCEPTANCE_TIME,
    nowMs + WEEK_MS,
    ENDED,
    (_id, _due, slice) => {
      const acceptance = acceptanceOfSlice(slice);
      if (acceptance) read.push(acceptance);
    },
  );
  const counts = acceptanceCounts(read, nowMs);
  return { held: counts.held + later, endingWithin7Days: counts.endingWithin7Days };
}
