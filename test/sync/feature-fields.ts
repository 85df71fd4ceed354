import type { ThreatRecord } from "../../src/sync/schema.js";
import { withAcceptance, type Acceptance } from "../../src/sync/features/acceptance/slice.js";
import { recurrenceOf, withRecurrence, type RecurredFrom } from "../../src/sync/features/recurrence/slice.js";
import { withSla, type SlaRecord } from "../../src/sync/features/sla/slice.js";

import { slaOf } from "../../src/sync/features/sla/slice.js";
import { acceptanceOf, acceptanceSoughtOf } from "../../src/sync/features/acceptance/slice.js";

export { slaOf, acceptanceOf, acceptanceSoughtOf };
export { occurrenceOf } from "../../src/sync/features/recurrence/slice.js";

/**
 * The workflow features' data as tests spell a record: beside its fields, for brevity. A record
 * holds none of them: each is its feature's slice (`featured` puts them there, as the features do).
 */
export interface FeatureFields {
  sla?: SlaRecord | undefined;
  acceptance?: Acceptance | undefined;
  acceptanceSought?: string | undefined;
  occurrence?: number | undefined;
  recurredFrom?: RecurredFrom | undefined;
}

type Core = { [K in keyof ThreatRecord as K extends "sla" | "occurrence" ? never : K]: ThreatRecord[K] };
export type Spelled = Core & FeatureFields;

/** The record of a spelled one: its features' data in their slices. */
export function featured(spelled: Spelled): ThreatRecord {
  const { sla, acceptance, acceptanceSought, occurrence, recurredFrom, ...core } = spelled;
  let record: ThreatRecord = core;
  if (sla !== undefined) record = withSla(record, sla);
  if (acceptance !== undefined || acceptanceSought !== undefined)
    record = withAcceptance(record, { held: acceptance, sought: acceptanceSought });
  if (occurrence !== undefined || recurredFrom !== undefined)
    record = withRecurrence(record, { occurrence, from: recurredFrom });
  return record;
}

/** The issue of the previous occurrence a record's recurrence slice names, or undefined. */
export function recurredFromOf(record: ThreatRecord | undefined): RecurredFrom | undefined {
  return recurrenceOf(record).from;
}

/** A record as tests spell it (`featured`'s inverse): its features' data beside its fields again. */
export function spelled(record: ThreatRecord | undefined | null): Spelled | undefined {
  if (!record) return undefined;
  const { sla, acceptance, recurrence, ...others } = record.slices ?? {};
  const { slices: _all, ...core } = record;
  const held = acceptanceOf(record);
  const sought = acceptanceSoughtOf(record);
  const { occurrence, from } = recurrenceOf(record);
  const had = sla !== undefined || acceptance !== undefined || recurrence !== undefined;
  return {
    ...core,
    ...(Object.keys(others).length > 0 ? { slices: others } : {}),
    ...(had && slaOf(record) ? { sla: slaOf(record) } : {}),
    ...(held ? { acceptance: held } : {}),
    ...(sought !== undefined ? { acceptanceSought: sought } : {}),
    ...(occurrence !== undefined ? { occurrence } : {}),
    ...(from ? { recurredFrom: from } : {}),
  };
}
