import { everyKeyOf } from "../../shared/index.js";
import { ThreatRecord, type IssueRecord } from "../schema.js";

/**
 * A stored threat record, checked with plain type checks: the engine reads rows in bulk (a stream's
 * pages, `status`, a backfill) and a zod parse of each costs more than the read. A row these checks
 * do not accept is parsed with the schema (which also applies its defaults, or refuses it).
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const optional = (v: unknown, check: (x: unknown) => boolean): boolean => v === undefined || check(v);
const isString = (v: unknown): v is string => typeof v === "string";

function isIssue(v: unknown): v is IssueRecord {
  return (
    isObject(v) &&
    isString(v["repo"]) &&
    Number.isInteger(v["number"]) &&
    Number(v["number"]) > 0 &&
    isString(v["url"]) &&
    (v["state"] === "open" || v["state"] === "closed") &&
    isString(v["hash"]) &&
    (v["id"] === undefined || (Number.isSafeInteger(v["id"]) && Number(v["id"]) > 0))
  );
}

/** The features' slices: strings by feature name (each feature checks its own when it reads it). */
function isSlices(v: unknown): v is Record<string, string> {
  return isObject(v) && Object.values(v).every(isString);
}

/** Every field of the schema's record: the compiler fails here when one is added to the schema only. */
export const THREAT_RECORD_FIELDS = everyKeyOf<typeof ThreatRecord.shape>()([
  "status",
  "severity",
  "assetId",
  "updatedAt",
  "gone",
  "issue",
  "link",
  "refused",
  "deletedIssue",
  "closedForRemoval",
  "slices",
]);
const KNOWN: ReadonlySet<string> = new Set(THREAT_RECORD_FIELDS);

function isPlainThreat(v: unknown): v is ThreatRecord {
  if (!isObject(v)) return false;
  const severity = v["severity"];
  return (
    isString(v["status"]) &&
    typeof severity === "number" &&
    Number.isInteger(severity) &&
    severity >= 0 &&
    severity <= 4 &&
    (v["assetId"] === null || isString(v["assetId"])) &&
    isString(v["updatedAt"]) &&
    optional(v["gone"], (x) => typeof x === "boolean") &&
    optional(v["issue"], isIssue) &&
    optional(v["link"], isString) &&
    // Rarer fields, and any field the schema does not know, go through the schema.
    v["refused"] === undefined &&
    v["deletedIssue"] === undefined &&
    optional(v["closedForRemoval"], (x) => typeof x === "boolean") &&
    optional(v["slices"], isSlices) &&
    Object.keys(v).every((k) => KNOWN.has(k))
  );
}

export function toThreatRecord(v: unknown): ThreatRecord {
  return isPlainThreat(v) ? v : ThreatRecord.parse(v);
}
