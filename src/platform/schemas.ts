import { z } from "zod";
import { isRecord } from "../shared/json.js";
import {
  isThreatStatus,
  SETTABLE_STATUSES,
  THREAT_STATUSES,
  type ThreatStatus,
} from "../shared/threat-status.js";

/** Zod schemas of the platform API, loose: new optional fields ship without notice (versioning rule 2). */

/** Any 8-4-4-4-12 hex string: the spec says "uuid" but shows no version, so none is enforced. */
const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
  message: "expected a UUID",
});

export { THREAT_STATUSES, SETTABLE_STATUSES };
export type KnownThreatStatus = ThreatStatus;
export const isKnownThreatStatus = isThreatStatus;

/** The statuses a caller may set, as a schema (the `pending` status is never settable). */
export const SettableStatus = z.enum(SETTABLE_STATUSES);
export type SettableStatus = z.infer<typeof SettableStatus>;

/** "Format: not shown": a timestamp-like position, kept as the platform sent it. */
const StreamPosition = z.union([z.string(), z.number()]).nullable();

/** The system the connector links threats into (contract: `PUT .../external-references/github`). */
export const GITHUB_SYSTEM = "github";

export const ExternalReference = z.looseObject({
  // The 1..64 length rule binds the PUT path segment; on reads a longer one must not cost the threat.
  system: z.string(),
  external_id: z.string(),
  // "Whether external_id and url are each required: not shown" (PUT external-references).
  url: z.string().nullable().optional(),
  linked_at: z.string().nullable().optional(),
});
export type ExternalReference = z.infer<typeof ExternalReference>;

/**
 * A threat's references: another system's malformed one is left out; an unreadable `github` one
 * fails the item, since taking it for absent could give the threat a second issue.
 */
const ExternalReferences = z.array(z.unknown()).transform((items, ctx) => {
  const refs: ExternalReference[] = [];
  for (const item of items) {
    const ref = ExternalReference.safeParse(item);
    if (ref.success) refs.push(ref.data);
    else if (isRecord(item) && item["system"] === GITHUB_SYSTEM) {
      ctx.issues.push({ code: "custom", input: item, message: `unreadable ${GITHUB_SYSTEM} reference` });
    }
  }
  return refs;
});

export const Threat = z.looseObject({
  id: Uuid,
  // Unknown statuses are accepted: a new value is an additive change (versioning rule 2).
  status: z.string(),
  updated_at: z.string(),
  stream_position: StreamPosition.optional(),
  module_data: z.record(z.string(), z.unknown()).nullable().optional(),
  external_references: ExternalReferences.default([]),
});
export type Threat = z.infer<typeof Threat>;

export const Asset = z.looseObject({
  id: Uuid,
  updated_at: z.string(),
  stream_position: StreamPosition.optional(),
  // Required by the spec's table; a missing flag is read as "live" rather than failing the item.
  deleted: z.boolean().default(false),
  deleted_at: z.string().nullable().optional(),
});
export type Asset = z.infer<typeof Asset>;

/** Problem Details (RFC 9457), the body of every error ("Errors"). All fields are lenient. */
export const Problem = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().int().optional(),
  detail: z.string().optional(),
  instance: z.string().optional(),
});
export type Problem = z.infer<typeof Problem>;

/** The pagination object present in every list response ("Common list behaviour"). */
export const Pagination = z.looseObject({
  next_cursor: z.string().nullable(),
  page_size: z.number().int().nonnegative().optional(),
});
export type Pagination = z.infer<typeof Pagination>;

/** Token endpoint answer (RFC 6749 §5.1); some identity providers send `expires_in` as a string. */
export const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.coerce.number().positive().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

/** Token endpoint error (RFC 6749 §5.2). */
export const TokenErrorBody = z.looseObject({
  error: z.string(),
  error_description: z.string().optional(),
});
