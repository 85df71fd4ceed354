import { everyKeyOf } from "../../shared/index.js";
import type { GroupMember, GroupParent, GroupRecord } from "../../state/index.js";

/**
 * A stored group record, checked with plain type checks as the threat rows are
 * (threat-record-guard.ts): the schema's parse of every group at open (each member, each parent's
 * attached list) was the largest piece of an idle `sync`'s start beyond the decode with grouping
 * on (about 50 ms of CPU for 3,000 grouped threats, 3 ms checked here). A group these checks do not
 * accept (single mode, a superseded group, a refused or retired parent, any key the schema does not
 * know) is parsed with the schema, which applies its defaults or refuses it.
 */

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";
const optional = (v: unknown, check: (x: unknown) => boolean): boolean => v === undefined || check(v);
const everyValue = (v: unknown, check: (x: unknown) => boolean): boolean =>
  isObject(v) && Object.values(v).every(check);

/** Every field of the schema's member, parent and group: the compiler fails here when one is added to the schema only. */
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
const MEMBER_KEYS: ReadonlySet<string> = new Set(GROUP_MEMBER_FIELDS);
const PARENT_KEYS: ReadonlySet<string> = new Set(GROUP_PARENT_FIELDS);
const RECORD_KEYS: ReadonlySet<string> = new Set(GROUP_RECORD_FIELDS);
const BY: ReadonlySet<unknown> = new Set(["asset", "title", "module", "cve"]);
const MODES: ReadonlySet<unknown> = new Set(["parent", "single"]);

function isPlainMember(v: unknown): boolean {
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
    Object.keys(v).every((k) => MEMBER_KEYS.has(k))
  );
}

/** A parent as the connector keeps it while it follows its members (the rarer fields: the schema). */
function isPlainParent(v: unknown): boolean {
  if (!isObject(v)) return false;
  const number = v["number"];
  const attached = v["attached"];
  return (
    Number.isInteger(number) &&
    Number(number) > 0 &&
    optional(v["id"], (x) => Number.isInteger(x) && Number(x) > 0) &&
    isString(v["url"]) &&
    (v["state"] === "open" || v["state"] === "closed") &&
    isString(v["hash"]) &&
    Array.isArray(attached) &&
    attached.every(isString) &&
    optional(v["checklistOnly"], (x) => x === "unavailable" || x === "full") &&
    v["refused"] === undefined &&
    v["retired"] === undefined &&
    Object.keys(v).every((k) => PARENT_KEYS.has(k))
  );
}

export function isPlainGroup(v: unknown): v is GroupRecord {
  return (
    isObject(v) &&
    BY.has(v["by"]) &&
    isString(v["key"]) &&
    everyValue(v["members"], isPlainMember) &&
    everyValue(v["parents"], isPlainParent) &&
    // Single mode and a superseded group are rarer: the schema checks them.
    v["single"] === undefined &&
    v["superseded"] === undefined &&
    optional(v["mode"], (x) => MODES.has(x)) &&
    optional(v["slices"], (x) => everyValue(x, isString)) &&
    Object.keys(v).every((k) => RECORD_KEYS.has(k))
  );
}
