import {
  type IssueRef,
  type Json,
  type SliceSteps,
  type SliceTime,
  type ThreatQueries,
} from "../../state/index.js";
import { type State, type ThreatBrief, type ThreatRecord } from "../schema.js";
import { TAG_COUNT, tagOf, type SliceTagger } from "./slice-tags.js";
import { deepFreeze } from "../../shared/deep-freeze.js";
import { toThreatRecord } from "./threat-record-guard.js";
import { toJson } from "./to-json.js";
import type { EngineAsset } from "../transitions/threat-version.js";

/**
 * The engine's threat records, read and written through where they are stored (the
 * state is held once, in the database: no process holds every threat). Backed by the store's
 * `threats` table when the engine runs over one (its questions of every row answered in SQL:
 * state/threat-queries.ts), or by a map of its own in tests and dry-runs of a plain state. Every read returns a fresh record (deep-frozen when the state guard is on), so no
 * caller can mutate what is stored: changes go through state-updates.ts, which calls `set`.
 */
export interface ThreatRecords {
  get(id: string): ThreatRecord | undefined;
  has(id: string): boolean;
  /** What the order of the threat's queued work reads, without building the record where the store can. */
  brief(id: string): ThreatBrief | undefined;
  entries(): IterableIterator<[string, ThreatRecord]>;
  values(): IterableIterator<ThreatRecord>;
  keys(): IterableIterator<string>;
  readonly size: number;
  /** What `status` shows of the threats, without building every record where the store can count. */
  tally(): ThreatTally;
  /**
   * Whether the stored record has this status and updated_at and is not gone: a re-delivery
   * (spec, "Events"). Read without building the record where the store can.
   */
  sameVersion(id: string, updatedAt: string, status: string): boolean;
  /**
   * Every threat's asset and issue (the engine's indexes are built from this, once per process);
   * a record of an uncommon shape (kept whole: a refusal, a feature's rare data...) is given whole as `loose`.
   */
  scan(
    visit: (
      id: string,
      assetId: string | null,
      issue: { repo: string; number: number } | null,
      loose?: ThreatRecord,
    ) => void,
  ): void;
  /**
   * Every threat with a slice of `feature`: the time (epoch ms) its slice holds at `at.due`, whether
   * the threat counts as open (an open issue, not gone) and whether its slice has `at.unless` set.
   * Read in SQL where the store can (the feature's time columns: no slice read, no record built;
   * a slice without a readable time there is not visited, where a read of the records gives NaN).
   */
  scanTimes(
    feature: string,
    at: SliceTime,
    visit: (id: string, dueMs: number, open: boolean, unless: boolean) => void,
  ): void;
  /**
   * A time before which no open threat's `feature` slice without `at.unless` falls due at `at.due`
   * (one SQL aggregate where the store can; +Infinity: none).
   */
  earliestTime(feature: string, at: SliceTime): number;
  /**
   * How many open threats' `feature` slices hold a time at `at.due` at or before each of `bounds`
   * (epoch ms): index ranges where the store can, no record built.
   */
  countTimes(feature: string, at: SliceTime, bounds: readonly number[]): number[];
  /**
   * The slices of `feature` a clock may find due by `bound` (epoch ms), whatever the threat's
   * state or `at.unless`: a time at `at.due` at or before `bound`, no readable time there, or a
   * value at `now.path` among `now.values` (`at.due` and `now.path`: keys, or keys joined by dots).
   * Each visited by threat id (in order), with its time (NaN: none) and its text; answers how many
   * other slices of `feature` there are. Where the store can, by index ranges and SQL over the
   * feature's rows (a threat's id by its integer key: no threat's JSON read, no record built).
   */
  slicesDueBy(
    feature: string,
    at: SliceTime,
    bound: number,
    now: SliceSteps,
    visit: (id: string, dueMs: number, slice: string) => void,
  ): number;
  /** Every record's slice of one feature (ThreatRecord.slices), with the record's issue. */
  scanSlices(feature: string, visit: (id: string, slice: string, issue: IssueRef | null) => void): void;
  /**
   * The store's SQL lookups (by issue, by asset, the repositories) when every change of the records
   * is written to it (a writable store): the engine's index asks them instead of holding its own.
   */
  readonly lookups: ThreatQueries | undefined;
  /** How many records' slices of one feature have each of its tagger's tags (index: the tag). */
  tallySlices(feature: string, tagger: SliceTagger): number[];
}

interface ThreatTally {
  known: number;
  gone: number;
  mapped: number;
  open: number;
  closed: number;
  byRepository: Record<string, number>;
  /** The threats with a refused step or a deleted issue (few). */
  special: [string, ThreatRecord][];
}

/** Where the records live: the store's `threats` table, or a map (a plain state). */
export interface ThreatRows {
  get(key: string): Json | undefined;
  set(key: string, value: Json): unknown;
  delete(key: string): unknown;
  entries(): IterableIterator<[string, Json]>;
  keys(): IterableIterator<string>;
  readonly size: number;
  /** SQL over the rows, when they are a database's (else every question reads every record). */
  readonly queries?: ThreatQueries | undefined;
}

export class ThreatRecordsView implements ThreatRecords {
  constructor(
    private readonly rows: ThreatRows,
    private readonly frozen = false,
    /**
     * The records of a plain state's map as checked once, by their stored value: stored values are
     * immutable and replaced on change, so a value checked is checked for good.
     */
    private readonly checked = new WeakMap<object, ThreatRecord>(),
  ) {}

  /** A view over a map of its own holding `records` (a plain state: tests, fixtures). */
  static of(records: Record<string, ThreatRecord>, frozen = false): ThreatRecordsView {
    const map = new Map<string, Json>();
    const view = new ThreatRecordsView(
      {
        get: (key) => map.get(key),
        set: (key, value) => map.set(key, value),
        delete: (key) => map.delete(key),
        entries: () => map.entries(),
        keys: () => map.keys(),
        get size() {
          return map.size;
        },
      },
      frozen,
    );
    for (const [id, record] of Object.entries(records)) view.set(id, record);
    return view;
  }

  /** The same rows, read deep-frozen (the state guard of tests and THREATBRIDGE_FREEZE_STATE=1). */
  withFreeze(frozen: boolean): ThreatRecordsView {
    return frozen === this.frozen ? this : new ThreatRecordsView(this.rows, frozen);
  }

  get size(): number {
    return this.rows.size;
  }

  get lookups(): ThreatQueries | undefined {
    const queries = this.rows.queries;
    return queries?.followsChanges ? queries : undefined;
  }

  has(id: string): boolean {
    return this.rows.get(id) !== undefined;
  }

  get(id: string): ThreatRecord | undefined {
    const value = this.rows.get(id);
    if (value === undefined) return undefined;
    // A plain state's record checked before (a database's row is parsed afresh: never there).
    const checked = typeof value === "object" && value !== null ? this.checked.get(value) : undefined;
    return checked ?? this.record(value);
  }

  brief(id: string): ThreatBrief | undefined {
    return this.get(id);
  }

  *entries(): IterableIterator<[string, ThreatRecord]> {
    for (const [id, value] of this.rows.entries()) yield [id, this.record(value)];
  }

  *values(): IterableIterator<ThreatRecord> {
    for (const [, value] of this.rows.entries()) yield this.record(value);
  }

  keys(): IterableIterator<string> {
    return this.rows.keys();
  }

  sameVersion(id: string, updatedAt: string, status: string): boolean {
    // A re-delivery is most of a re-read stream: its row's columns tell it, no record is built.
    const queries = this.lookups;
    if (queries) return queries.sameVersion(id, updatedAt, status);
    const record = this.get(id);
    return record !== undefined && !record.gone && record.updatedAt === updatedAt && record.status === status;
  }

  scan(
    visit: (
      id: string,
      assetId: string | null,
      issue: { repo: string; number: number } | null,
      loose?: ThreatRecord,
    ) => void,
  ): void {
    const queries = this.rows.queries;
    if (queries) return queries.scanIssues(visit);
    for (const [id, value] of this.rows.entries()) {
      const record = this.looseRecord(value);
      visit(id, record.assetId, record.issue ?? null, record);
    }
  }

  scanTimes(
    feature: string,
    at: SliceTime,
    visit: (id: string, dueMs: number, open: boolean, unless: boolean) => void,
  ): void {
    const queries = this.rows.queries;
    if (queries) return queries.scanTimes(feature, at, visit);
    this.readTimes(feature, at, visit);
  }

  /** A plain state's map, in memory: each record's slice read as it is. */
  private readTimes(
    feature: string,
    at: SliceTime,
    visit: (id: string, dueMs: number, open: boolean, unless: boolean) => void,
  ): void {
    for (const [id, value] of this.rows.entries()) {
      const record = this.looseRecord(value);
      const slice = sliceObject(record.slices?.[feature]);
      if (slice === null) continue;
      const open = record.issue?.state === "open" && !record.gone;
      visit(id, Date.parse(String(slice[at.due] ?? null)), open, slice[at.unless] != null);
    }
  }

  earliestTime(feature: string, at: SliceTime): number {
    const queries = this.rows.queries;
    if (queries) return queries.earliestTime(feature, at);
    let earliest = Number.POSITIVE_INFINITY;
    this.readTimes(feature, at, (_id, dueMs, open, unless) => {
      if (open && !unless && !Number.isNaN(dueMs)) earliest = Math.min(earliest, dueMs);
    });
    return earliest;
  }

  countTimes(feature: string, at: SliceTime, bounds: readonly number[]): number[] {
    const queries = this.rows.queries;
    if (queries) return queries.countTimes(feature, at, bounds);
    const counts = bounds.map(() => 0);
    this.readTimes(feature, at, (_id, due, open) => {
      if (open) bounds.forEach((bound, i) => (counts[i] = (counts[i] ?? 0) + (due <= bound ? 1 : 0)));
    });
    return counts;
  }

  slicesDueBy(
    feature: string,
    at: SliceTime,
    bound: number,
    now: SliceSteps,
    visit: (id: string, dueMs: number, slice: string) => void,
  ): number {
    const queries = this.rows.queries;
    if (queries) return queries.slicesDueBy(feature, at, bound, now, visit);
    const due: [string, number, string][] = [];
    let others = 0;
    for (const [id, value] of this.rows.entries()) {
      const text = this.looseRecord(value).slices?.[feature];
      if (text === undefined) continue;
      const slice = sliceObject(text);
      const time = Date.parse(String(valueAt(slice, at.due) ?? null));
      const step = valueAt(slice, now.path);
      if (Number.isNaN(time) || time <= bound || (typeof step === "string" && now.values.includes(step)))
        due.push([id, time, text]);
      else others += 1;
    }
    // By threat id, as the store's rows are read.
    due.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [id, time, text] of due) visit(id, time, text);
    return others;
  }

  scanSlices(feature: string, visit: (id: string, slice: string, issue: IssueRef | null) => void): void {
    const queries = this.rows.queries;
    if (queries) return queries.scanSlices(feature, visit);
    for (const [id, value] of this.rows.entries()) {
      const record = this.looseRecord(value);
      const slice = record.slices?.[feature];
      const issue = record.issue ? { repo: record.issue.repo, number: record.issue.number } : null;
      if (slice !== undefined) visit(id, slice, issue);
    }
  }

  tallySlices(feature: string, tagger: SliceTagger): number[] {
    const counts = new Array<number>(TAG_COUNT).fill(0);
    this.scanSlices(feature, (_id, slice) => {
      const tag = tagOf(tagger, slice);
      counts[tag] = (counts[tag] ?? 0) + 1;
    });
    return counts;
  }

  tally(): ThreatTally {
    const queries = this.rows.queries;
    if (queries) {
      const { tally, special } = queries.tally();
      return { ...tally, special: special.map(([id, value]) => [id, this.looseRecord(value)]) };
    }
    const tally: ThreatTally = {
      known: 0,
      gone: 0,
      mapped: 0,
      open: 0,
      closed: 0,
      byRepository: {},
      special: [],
    };
    for (const [id, value] of this.rows.entries()) {
      const record = this.looseRecord(value);
      if (record.refused || record.deletedIssue) tally.special.push([id, record]);
      tally.known += 1;
      if (record.gone) tally.gone += 1;
      if (!record.issue) continue;
      tally.mapped += 1;
      tally[record.issue.state] += 1;
      tally.byRepository[record.issue.repo] = (tally.byRepository[record.issue.repo] ?? 0) + 1;
    }
    return tally;
  }

  /**
   * Only state-updates.ts calls this (it marks the key for the next commit). The value stored is
   * the engine's own record as JSON, so it is held as checked: reading it back builds nothing.
   */
  set(id: string, record: ThreatRecord): void {
    const value = toJson(record);
    this.rows.set(id, value);
    if (typeof value !== "object" || value === null) return;
    const stored = value as unknown as ThreatRecord;
    this.checked.set(value, this.frozen ? deepFreeze(stored) : stored);
  }

  delete(id: string): void {
    this.rows.delete(id);
  }

  /** As plain JSON: `JSON.stringify(state)` writes the schema's `threats` record (tests, dumps). */
  toJSON(): Record<string, ThreatRecord> {
    return Object.fromEntries(this.entries());
  }

  private record(value: Json): ThreatRecord {
    const record = toThreatRecord(value);
    return this.frozen ? deepFreeze(record) : record;
  }

  /** A stored value read as a record, checked once (`checked`); a database's rows are fresh each read. */
  private looseRecord(value: Json): ThreatRecord {
    if (typeof value !== "object" || value === null) return this.record(value);
    let record = this.checked.get(value);
    if (record === undefined) {
      record = this.record(value);
      this.checked.set(value, record);
    }
    return record;
  }
}

/** A slice's text as the JSON object SQL reads with `->>` (null: none, or not an object). */
function sliceObject(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The value at `path` (keys joined by dots) in a slice's JSON object, or undefined. */
function valueAt(slice: Record<string, unknown> | null, path: string): unknown {
  let value: unknown = slice;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The engine's state: the schema's, with the threats read through where they are stored. */
export type EngineState = Omit<State, "threats" | "assets"> & {
  threats: ThreatRecords;
  /** The store's asset records, with the values the routes read (transitions/threat-version.ts). */
  assets: Record<string, EngineAsset>;
};

/** A plain state (tests, fixtures, the dry-run of a version-1 file) as the engine holds it. */
export function engineState(state: State | EngineState): EngineState {
  if (!isPlain(state)) return state;
  // Its other values as they are held (a value read when first used stays so: the groups).
  const { threats: _threats, ...others } = Object.getOwnPropertyDescriptors(state);
  const engine = Object.defineProperties({}, others) as EngineState;
  engine.threats = ThreatRecordsView.of(state.threats);
  return engine;
}

function isPlain(state: State | EngineState): state is State {
  return !(state.threats instanceof ThreatRecordsView);
}
