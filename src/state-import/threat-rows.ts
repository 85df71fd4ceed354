import { isInt, isObject, type Json, type JsonObject } from "./packs.js";

/**
 * The `threats` collection as the old store held it in memory, which is what its importer wrote:
 * a column table whose rows came back as a record rebuilt in the table's own key order, and beside
 * it the records of any other shape, kept whole as written. The import writes the table's rows
 * first, in the order they entered it, then the whole ones: the same rows, in the same order and
 * the same JSON text, as the old importer.
 */

const MAX_INT32 = 2 ** 31 - 1;
/** The table gave at most this many feature names a slice column; a record naming more stayed whole. */
const MAX_SLICE_COLUMNS = 64;
/** The keys of a record the table held as a row, in the order it gave them back (any other key kept it whole). */
const ROW_KEYS = "status severity assetId issue link updatedAt sla occurrence slices".split(" ");
const ISSUE_KEYS = ["repo", "number", "url", "state", "hash", "id"];
const SLA_KEYS = ["since", "due", "breach", "milestone"];

/** `value`'s keys among `keys`, in their order. */
const ordered = (value: JsonObject, keys: readonly string[]): JsonObject =>
  Object.fromEntries(keys.filter((key) => Object.hasOwn(value, key)).map((key) => [key, value[key] ?? null]));

/** GitHub's issue ids: positive integers within a double's exact range. */
export const isIssueId = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;

/** Epoch ms of a time written exactly as toISOString writes it (so it formats back to itself). */
function isoMs(value: Json | undefined): number | null {
  if (typeof value !== "string") return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && new Date(ms).toISOString() === value ? ms : null;
}

/** An SLA time the table held: toISOString's form with a four-digit year. */
const isSlaTime = (value: Json | undefined): boolean =>
  typeof value === "string" && value.length === 24 && isoMs(value) !== null;

function issueFits(issue: Json | undefined): boolean {
  if (!isObject(issue)) return false;
  const keys = Object.keys(issue);
  if (keys.length !== (Object.hasOwn(issue, "id") ? 6 : 5) || !keys.every((key) => ISSUE_KEYS.includes(key)))
    return false;
  const { repo, number, url, state, hash, id } = issue;
  return (
    typeof repo === "string" &&
    isInt(number, 1, MAX_INT32) &&
    typeof url === "string" &&
    url.endsWith(`/${repo}/issues/${number}`) &&
    (state === "open" || state === "closed") &&
    typeof hash === "string" &&
    (id === undefined || isIssueId(id))
  );
}

function slaFits(sla: Json | undefined): boolean {
  if (!isObject(sla) || !Object.keys(sla).every((key) => SLA_KEYS.includes(key))) return false;
  const { since, due, breach, milestone } = sla;
  return (
    isSlaTime(since) &&
    isSlaTime(due) &&
    (breach === undefined || breach === "added" || breach === "removed") &&
    (milestone === undefined || typeof milestone === "string")
  );
}

export class ThreatRows {
  private readonly rows = new Map<string, JsonObject>();
  private readonly whole = new Map<string, Json>();
  /** The feature names in the order the table made their slice columns: a row's slices come in it. */
  private readonly names: string[];

  constructor(sliceNames: readonly string[] = []) {
    this.names = [...sliceNames];
  }

  /** A record written to the collection (a snapshot's whole record, a journal's change). */
  set(id: string, value: Json): void {
    if (this.fits(value)) {
      this.whole.delete(id);
      this.rows.set(id, this.rowForm(value));
    } else {
      this.rows.delete(id);
      this.whole.set(id, value);
    }
  }

  /** A row read from a snapshot's columns (rowForm already); false when its id has one. */
  add(id: string, row: JsonObject): boolean {
    if (this.rows.has(id)) return false;
    this.rows.set(id, row);
    return true;
  }

  delete(id: string): void {
    if (!this.rows.delete(id)) this.whole.delete(id);
  }

  *entries(): IterableIterator<[string, Json]> {
    yield* this.rows;
    yield* this.whole;
  }

  /** Whether the table held `value` as a row: known keys only, each of the form a column holds. */
  private fits(value: Json): value is JsonObject {
    if (!isObject(value) || !Object.keys(value).every((key) => ROW_KEYS.includes(key))) return false;
    const { status, severity, assetId, issue, link, updatedAt, sla, occurrence, slices } = value;
    if (typeof status !== "string" || !isInt(severity, 0, 4)) return false;
    if (assetId !== null && typeof assetId !== "string") return false;
    if ((isoMs(updatedAt) ?? 0) <= 0) return false;
    if (issue !== undefined && !issueFits(issue)) return false;
    if (
      link !== undefined &&
      !(isObject(issue) && link === `${String(issue["repo"])}#${String(issue["number"])}`)
    )
      return false;
    if (sla !== undefined && !slaFits(sla)) return false;
    if (occurrence !== undefined && !isInt(occurrence, 1, MAX_INT32)) return false;
    if (slices === undefined) return true;
    if (!isObject(slices)) return false;
    const names = Object.keys(slices);
    if (names.length === 0 || !names.every((name) => typeof slices[name] === "string")) return false;
    const added = names.filter((name) => !this.names.includes(name)).length;
    return added === 0 || this.names.length + added <= MAX_SLICE_COLUMNS;
  }

  /** A fitting record as the table gave it back: its keys in the table's order, its slices in its columns'. */
  private rowForm(value: JsonObject): JsonObject {
    const { issue, sla, slices } = value;
    const row = ordered(value, ROW_KEYS);
    if (isObject(issue)) row["issue"] = ordered(issue, ISSUE_KEYS);
    if (isObject(sla)) row["sla"] = ordered(sla, SLA_KEYS);
    if (isObject(slices)) {
      for (const name of Object.keys(slices)) if (!this.names.includes(name)) this.names.push(name);
      row["slices"] = ordered(slices, this.names);
    }
    return row;
  }
}
