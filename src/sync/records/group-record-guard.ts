import { everyKeyOf } from "../../shared/index.js";
import { GroupRecord, type GroupIssue, type GroupMember, type GroupParent } from "../schema.js";

/**
 * A stored group record, checked with plain type checks: the schema's parse of every group (10 %
 * of 100,000 threats in 480 groups, each member a small object) was a tenth of the load with every
 * feature on. A record these checks accept is exactly what the schema would give back (every key
 * known, so nothing is stripped; no field has a default); any other is parsed with the schema,
 * which refuses it or gives its parsed copy, as before.
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";
const optional = (v: unknown, check: (x: unknown) => boolean): boolean => v === undefined || check(v);
const isPositiveInt = (v: unknown): boolean => Number.isSafeInteger(v) && Number(v) > 0;
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every(isString);
const isState = (v: unknown): boolean => v === "open" || v === "closed";
const isRetired = (v: unknown): boolean => v === "closed" || v === "noted";

/** Every field of each part of the schema's record: the compiler fails here when the schema gains one. */
export const GROUP_RECORD_FIELDS = everyKeyOf<GroupRecord>()([
  "by",
  "key",
  "members",
  "parents",
  "single",
  "mode",
  "superseded",
  "slices",
]);
export const GROUP_MEMBER_FIELDS = everyKeyOf<GroupMember>()([
  "title",
  "severity",
  "status",
  "assetId",
  "repo",
  "verdictAt",
]);
export const GROUP_PARENT_FIELDS = everyKeyOf<GroupParent>()([
  "number",
  "id",
  "url",
  "state",
  "hash",
  "attached",
  "checklistOnly",
  "refused",
  "retired",
]);
export const GROUP_ISSUE_FIELDS = everyKeyOf<GroupIssue>()([
  "number",
  "id",
  "url",
  "state",
  "hash",
  "person",
  "closedByPerson",
  "refused",
  "retired",
]);
const RECORD_KEYS: ReadonlySet<string> = new Set(GROUP_RECORD_FIELDS);
const ISSUE_KEYS: ReadonlySet<string> = new Set(GROUP_ISSUE_FIELDS);
const MEMBER_KEYS: ReadonlySet<string> = new Set(GROUP_MEMBER_FIELDS);
const PARENT_KEYS: ReadonlySet<string> = new Set(GROUP_PARENT_FIELDS);
const BY: ReadonlySet<unknown> = new Set(["asset", "title", "module", "cve"]);

const onlyKeys = (v: Record<string, unknown>, known: ReadonlySet<string>): boolean => {
  for (const key in v) if (!known.has(key)) return false;
  return true;
};

function isMember(v: unknown): v is GroupMember {
  if (!isObject(v)) return false;
  const severity = v["severity"];
  return (
    isString(v["title"]) &&
    typeof severity === "number" &&
    Number.isInteger(severity) &&
    severity >= 0 &&
    severity <= 4 &&
    optional(v["status"], isString) &&
    optional(v["assetId"], (x) => x === null || isString(x)) &&
    optional(v["repo"], isString) &&
    optional(v["verdictAt"], isString) &&
    onlyKeys(v, MEMBER_KEYS)
  );
}

/** What a parent and a single-mode issue both hold: the GitHub issue, its state and the hash written. */
function isIssueBase(v: unknown): v is Record<string, unknown> {
  return (
    isObject(v) &&
    isPositiveInt(v["number"]) &&
    optional(v["id"], isPositiveInt) &&
    isString(v["url"]) &&
    isState(v["state"]) &&
    isString(v["hash"])
  );
}

function isParent(v: unknown): v is GroupParent {
  return (
    isIssueBase(v) &&
    isStrings(v["attached"]) &&
    optional(v["checklistOnly"], (x) => x === "unavailable" || x === "full") &&
    optional(v["refused"], isString) &&
    optional(v["retired"], isRetired) &&
    onlyKeys(v, PARENT_KEYS)
  );
}

function isIssue(v: unknown): v is GroupIssue {
  return (
    isIssueBase(v) &&
    // A person's change with its verdicts still to send is rare: the schema checks it.
    v["person"] === undefined &&
    optional(v["closedByPerson"], isStrings) &&
    optional(v["refused"], isString) &&
    optional(v["retired"], isRetired) &&
    onlyKeys(v, ISSUE_KEYS)
  );
}

/** Every value of `v`, an object, passes `check`. */
function everyValue(v: unknown, check: (x: unknown) => boolean): boolean {
  if (!isObject(v)) return false;
  for (const key in v) if (!check(v[key])) return false;
  return true;
}

function isPlainGroup(v: unknown): v is GroupRecord {
  return (
    isObject(v) &&
    BY.has(v["by"]) &&
    isString(v["key"]) &&
    everyValue(v["members"], isMember) &&
    everyValue(v["parents"], isParent) &&
    optional(v["single"], (x) => everyValue(x, isIssue)) &&
    optional(v["mode"], (x) => x === "parent" || x === "single") &&
    optional(v["superseded"], isString) &&
    optional(v["slices"], (x) => everyValue(x, isString)) &&
    onlyKeys(v, RECORD_KEYS)
  );
}

/** The stored group itself when the plain checks pass (what the schema would give back), else null. */
export function plainGroup(v: unknown): GroupRecord | null {
  return isPlainGroup(v) ? v : null;
}

/** The stored group as a GroupRecord: the value itself when the plain checks pass, else the schema's parse (which throws on a bad one). */
export function toGroupRecord(v: unknown): GroupRecord {
  return plainGroup(v) ?? GroupRecord.parse(v);
}
