import { everyKeyOf } from "../shared/every-key.js";
import { Interner } from "./interner.js";
import { isoCanonicalMs } from "../state/iso-ms.js";
import type { IssueRecord, ThreatRecord } from "../state/schema.js";
import type { Json } from "./journal-line.js";
import {
  DIGIT_COLUMNS,
  RowError,
  type ThreatColumns,
  type ThreatColumnsDoc,
} from "./snapshot-threat-codec.js";
import {
  COMPACT_CODEC,
  compactSla,
  expandCompact,
  isCompactCodec,
  PACKED_CODEC,
  PACKED_COLUMNS,
  packBytes,
  packText,
  toDigits,
  unpackCompact,
} from "./threat-compact.js";
import { binaryColumn, columnBytes, type BinaryColumns } from "./column-pack.js";
import { PackedSliceColumn, packSliceColumn } from "./slice-pack.js";
import { LoadedTags, packTags, TAG_COUNT, type SliceTagger, type SliceTaggers } from "./slice-tags.js";
import {
  SliceColumns,
  checkSliceBlock,
  readSliceCells,
  sliceCellsFit,
  sliceNamesAt,
  slicesFit,
} from "./slice-columns.js";
import {
  isTimeCell,
  WORKFLOW_COLUMNS,
  WORKFLOW_KEYS,
  WorkflowColumns,
  cellsFit,
  readWorkflowCells,
  workflowFits,
  workflowJson,
} from "./workflow-columns.js";

/**
 * The `threats` collection in memory as columns: the state is held once, and compactly.
 * A mapped threat {status, severity, assetId, updatedAt, issue: {repo, number, url, state, hash},
 * link} is one row of typed arrays plus its id and hash strings (~180 bytes, against ~600 for the
 * same record as JS objects); its SLA and occurrence, when the workflow features give it one, are
 * columns too (workflow-columns.ts), and so are the plug-in features' slices, a string column per
 * feature name (slice-columns.ts). Repeated strings (statuses, asset ids, repositories, URL
 * bases, milestone titles) are interned. A value of any other shape (a refused step, a deleted issue, a URL GitHub did not
 * derive from the repository...) is kept whole in `extra`: the table is lossless for any JSON.
 *
 * Reads materialize a fresh object per call (callers never see, or mutate, shared storage);
 * `copy()` is the consistent view a compaction snapshots while commits go on.
 */

type JsonObject = { [key: string]: Json };

/**
 * The part of a threat's record that the order of its queued work depends on (a whole
 * ThreatRecord is one): what the planner's first step is decided by, and the severity.
 */
export type ThreatBrief = Pick<ThreatRecord, "status" | "severity" | "gone" | "closedForRemoval" | "link"> & {
  issue?: Pick<IssueRecord, "repo" | "number" | "state"> | undefined;
};

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Shared by a table and its copies: interning only ever appends, so old indexes stay valid. */
interface Tables {
  statuses: Interner;
  assets: Interner;
  repos: Interner;
  bases: Interner;
  milestones: Interner;
}

// Field names checked against the record's schema by the compiler (no cost at run time).
const PACKED_KEYS: ReadonlySet<string> = new Set([
  "status",
  "severity",
  "assetId",
  "issue",
  "link",
  "updatedAt",
  ...WORKFLOW_KEYS,
  "slices",
] satisfies (keyof ThreatRecord)[]);
const ISSUE_KEYS: ReadonlySet<string> = new Set(
  everyKeyOf<IssueRecord>()(["repo", "number", "url", "state", "hash", "id"]),
);
const MAX_INT32 = 2 ** 31 - 1;
/**
 * The packed shape is a valid ThreatRecord (src/state/schema.ts) by construction: severity 0..4,
 * updatedAt present, an issue number positive. Only `extra` rows need checking (`looseEntries`).
 */
const MAX_SEVERITY = 4;
/** The largest epoch ms a Date holds (ECMA-262 time values). */
const MAX_TIME_MS = 8.64e15;

/** Epoch ms of an ISO time when it gives the same string back (so nothing is lost), else null. */
function isoMs(iso: string): number | null {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms > 0 && new Date(ms).toISOString() === iso ? ms : null;
}

/** GitHub's issue ids are positive integers well within a double's exact range. */
function isIssueId(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0;
}

function issueFits(issue: Json | undefined): boolean {
  if (!isObject(issue)) return false;
  const keys = Object.keys(issue);
  // `id` (GitHub's issue id, for sub-issues) is optional: the other keys are all required.
  const required = ISSUE_KEYS.size - (Object.hasOwn(issue, "id") ? 0 : 1);
  if (keys.length !== required || !keys.every((k) => ISSUE_KEYS.has(k))) return false;
  const { repo, number, url, state, hash, id } = issue;
  if (id !== undefined && !isIssueId(id)) return false;
  return (
    typeof repo === "string" &&
    typeof number === "number" &&
    Number.isInteger(number) &&
    number > 0 &&
    number <= MAX_INT32 &&
    typeof url === "string" &&
    url.endsWith(`/${repo}/issues/${number}`) &&
    (state === "open" || state === "closed") &&
    typeof hash === "string"
  );
}

/** Whether `value` has exactly the packed shape (anything else goes to `extra`, whole). */
function fits(value: Json): value is JsonObject {
  if (!isObject(value)) return false;
  for (const key of Object.keys(value)) if (!PACKED_KEYS.has(key)) return false;
  const { status, severity, assetId, issue, link, updatedAt } = value;
  if (typeof status !== "string") return false;
  if (typeof severity !== "number" || !Number.isInteger(severity) || severity < 0 || severity > MAX_SEVERITY)
    return false;
  if (assetId !== null && typeof assetId !== "string") return false;
  if (typeof updatedAt !== "string" || isoMs(updatedAt) === null) return false;
  if (issue !== undefined && !issueFits(issue)) return false;
  if (link !== undefined) {
    if (!isObject(issue) || link !== `${String(issue["repo"])}#${String(issue["number"])}`) return false;
  }
  return workflowFits(value) && slicesFit(value["slices"]);
}

const INITIAL_CAPACITY = 64;

/** The codec of a block with the workflow columns (snapshot-threat-codec.ts). */
export const WORKFLOW_CODEC = "threat-5";
/** The codec of a block with slice columns (`threat-5` plus `sliceNames` and `slices`). */
export const SLICES_CODEC = "threat-6";
/** The codecs of a block with workflow or slice columns (threat-compact.ts): read, and written. */
export { COMPACT_CODEC, PACKED_CODEC };

export class ThreatTable {
  private readonly index: Map<string, number>;
  private readonly extra: Map<string, Json>;
  private readonly free: number[];
  private readonly tables: Tables;
  private end: number;
  private ids: (string | undefined)[];
  private hash: string[];
  private status: Uint16Array;
  private severity: Uint8Array;
  /** Index into tables.assets; -1: null. */
  private asset: Int32Array;
  /** Index into tables.repos; -1: no issue. */
  private repo: Int32Array;
  private number: Int32Array;
  private closed: Uint8Array;
  private base: Int32Array;
  /** 1: `link` is `<repo>#<number>` of the issue; 0: no link. */
  private linked: Uint8Array;
  /** updated_at as epoch ms; 0: absent. */
  private updated: Float64Array;
  /** GitHub's id of the issue (sub-issues name a child by it); 0: not known. */
  private issueId: Float64Array;
  /** Made when the first row with an SLA or a later occurrence comes: a state without any pays nothing. */
  private workflow: WorkflowColumns | null;
  /** Made when the first row with a feature's slice comes, likewise. */
  private slices: SliceColumns | null;
  /**
   * No stored open issue's SLA (not breached) falls due before this (epoch ms): exact at load, then
   * lowered by every write and never raised (a lower bound). An idle cycle's SLA sweep reads it
   * instead of every row while it is in the future.
   */
  private slaFloor: number;

  constructor(from?: ThreatTable) {
    if (from) {
      this.index = new Map(from.index);
      this.extra = new Map(from.extra);
      this.free = from.free.slice();
      this.tables = from.tables;
      this.end = from.end;
      this.ids = from.ids.slice();
      this.hash = from.hash.slice();
      this.status = from.status.slice();
      this.severity = from.severity.slice();
      this.asset = from.asset.slice();
      this.repo = from.repo.slice();
      this.number = from.number.slice();
      this.closed = from.closed.slice();
      this.base = from.base.slice();
      this.linked = from.linked.slice();
      this.updated = from.updated.slice();
      this.issueId = from.issueId.slice();
      this.workflow = from.workflow?.copy() ?? null;
      this.slices = from.slices?.copy() ?? null;
      this.slaFloor = from.slaFloor;
      return;
    }
    this.index = new Map();
    this.extra = new Map();
    this.free = [];
    this.tables = {
      statuses: new Interner(),
      assets: new Interner(),
      repos: new Interner(),
      bases: new Interner(),
      milestones: new Interner(),
    };
    this.end = 0;
    this.ids = [];
    this.hash = [];
    const n = INITIAL_CAPACITY;
    this.status = new Uint16Array(n);
    this.severity = new Uint8Array(n);
    this.asset = new Int32Array(n);
    this.repo = new Int32Array(n);
    this.number = new Int32Array(n);
    this.closed = new Uint8Array(n);
    this.base = new Int32Array(n);
    this.linked = new Uint8Array(n);
    this.updated = new Float64Array(n);
    this.issueId = new Float64Array(n);
    this.workflow = null;
    this.slices = null;
    this.slaFloor = Number.POSITIVE_INFINITY;
  }

  copy(): ThreatTable {
    return new ThreatTable(this);
  }

  get size(): number {
    return this.index.size + this.extra.size;
  }

  has(id: string): boolean {
    return this.index.has(id) || this.extra.has(id);
  }

  get(id: string): Json | undefined {
    const row = this.index.get(id);
    return row === undefined ? this.extra.get(id) : this.materialize(row);
  }

  set(id: string, value: Json): this {
    this.noteSla(value);
    if (!fits(value) || this.tables.statuses.list.length >= 0xffff || !this.sliceRoom(value)) {
      this.dropRow(id);
      this.extra.set(id, value);
      return this;
    }
    this.extra.delete(id);
    let row = this.index.get(id);
    if (row === undefined) {
      row = this.allocate();
      this.index.set(id, row);
      this.ids[row] = id;
    }
    this.write(row, value);
    return this;
  }

  delete(id: string): boolean {
    return this.dropRow(id) || this.extra.delete(id);
  }

  *entries(): IterableIterator<[string, Json]> {
    for (const [id, row] of this.index) yield [id, this.materialize(row)];
    yield* this.extra.entries();
  }

  /**
   * Whether the packed row of `id` holds this status and exactly this updated_at (the test for a
   * re-delivery, spec "Events"), read from the columns; undefined when `id` is not a packed row.
   */
  sameVersion(id: string, updatedAt: string, status: string): boolean | undefined {
    const row = this.index.get(id);
    if (row === undefined) return undefined;
    if (this.tables.statuses.list[this.status[row] ?? 0] !== status) return false;
    // The stored instant formats to exactly the string it was written from (isoMs). A string in
    // that form is read without building a Date (iso-ms.ts); any other is compared as formatted.
    const ms = this.updated[row] ?? 0;
    if (ms <= 0) return false;
    const read = isoCanonicalMs(updatedAt);
    return read !== null ? read === ms : new Date(ms).toISOString() === updatedAt;
  }

  /**
   * A packed row's brief (ThreatBrief), read from the columns without building the record: the
   * queue's order reads it for every queued threat at each drain. Undefined when `id` is not a
   * packed row (a packed row is never gone nor closed for a removal: those are kept whole).
   */
  brief(id: string): ThreatBrief | undefined {
    const row = this.index.get(id);
    if (row === undefined) return undefined;
    const t = this.tables;
    const brief: ThreatBrief = {
      status: t.statuses.list[this.status[row] ?? 0] ?? "",
      severity: this.severity[row] ?? 0,
    };
    const repoIndex = this.repo[row] ?? -1;
    if (repoIndex >= 0) {
      const repo = t.repos.list[repoIndex] ?? "";
      const number = this.number[row] ?? 0;
      brief.issue = { repo, number, state: this.closed[row] === 1 ? "closed" : "open" };
      if (this.linked[row] === 1) brief.link = `${repo}#${number}`;
    }
    return brief;
  }

  /** Each packed row's asset and issue, read from the columns (indexes are built from this). */
  scanPacked(visit: (id: string, assetId: string | null, repo: string | null, number: number) => void): void {
    const t = this.tables;
    for (const [id, row] of this.index) {
      const asset = this.asset[row] ?? -1;
      const repo = this.repo[row] ?? -1;
      visit(
        id,
        asset < 0 ? null : (t.assets.list[asset] ?? null),
        repo < 0 ? null : (t.repos.list[repo] ?? null),
        this.number[row] ?? 0,
      );
    }
  }

  /**
   * Each packed row with an SLA: its due time (epoch ms), whether its issue is open (a packed row is
   * never gone) and whether the breach label was noted: the SLA index and `status` read this.
   */
  scanPackedSla(visit: (id: string, dueMs: number, open: boolean, breach: boolean) => void): void {
    const workflow = this.workflow;
    if (workflow === null) return;
    // Row by row over the typed arrays (a free row has no id), not through the id map: the SLA's
    // first sweep of an idle `sync` reads every row, ~13 ms at 100,000 through the map.
    const { since, due, breach } = workflow;
    const { ids, repo, closed } = this;
    for (let row = 0; row < this.end; row++) {
      const start = since[row] ?? Number.NaN;
      if (start !== start) continue;
      const id = ids[row];
      if (id === undefined) continue;
      visit(id, due[row] ?? 0, (repo[row] ?? -1) >= 0 && closed[row] !== 1, (breach[row] ?? 0) !== 0);
    }
  }

  /**
   * A time before which no stored threat's SLA falls due among those with an open issue whose
   * breach is not noted (what the SLA's sweep looks for), packed or kept whole; a lower bound.
   */
  earliestOpenSlaDue(): number {
    return this.slaFloor;
  }

  /** Lowers `slaFloor` to the SLA due time of a value being stored, when it counts (see there). */
  private noteSla(value: Json): void {
    if (!isObject(value)) return;
    const sla = value["sla"];
    const issue = value["issue"];
    if (!isObject(sla) || sla["breach"] !== undefined || value["gone"] === true) return;
    if (!isObject(issue) || issue["state"] !== "open") return;
    const due = typeof sla["due"] === "string" ? Date.parse(sla["due"]) : Number.NaN;
    // A time that does not parse is never due (wake-due.ts): it lowers nothing.
    if (due < this.slaFloor) this.slaFloor = due;
  }

  /** One feature's slices of the packed rows, read from its column (no record is built). */
  scanPackedSlices(name: string, visit: (id: string, slice: string) => void): void {
    const cell = this.slices?.reader(name) ?? null;
    if (cell === null) return;
    // Row by row (a free row has no id), as the SLA's scan: `status` counts two columns at 100,000.
    const ids = this.ids;
    for (let row = 0; row < this.end; row++) {
      const id = ids[row];
      if (id === undefined) continue;
      const slice = cell(row);
      if (slice !== undefined) visit(id, slice);
    }
  }

  /**
   * How many of the packed rows' slices of one feature have each tag (index: the tag, slice-tags.ts),
   * from the tags a compaction kept where they are this tagger's (no column is inflated), else from
   * the slices: `status`'s counts.
   */
  tallySlices(name: string, tagger: SliceTagger): number[] {
    const counts = new Array<number>(TAG_COUNT).fill(0);
    const tagOfRow = this.slices?.tagReader(name, tagger) ?? null;
    if (tagOfRow === null) return counts;
    const ids = this.ids;
    for (let row = 0; row < this.end; row++) {
      if (ids[row] === undefined) continue;
      const tag = tagOfRow(row);
      if (tag >= 0) counts[tag] = (counts[tag] ?? 0) + 1;
    }
    return counts;
  }

  /** The features whose slice column was read since it was loaded from a snapshot (slice-pack.ts). */
  inflatedSlices(): string[] {
    return this.slices?.inflated() ?? [];
  }

  /** Counts over the packed rows, read from the columns (no record is built): `status` at 300k. */
  packedTally(): { rows: number; open: number; closed: number; byRepo: Map<string, number> } {
    const byIndex = new Map<number, number>();
    let open = 0;
    let closed = 0;
    for (const row of this.index.values()) {
      const repo = this.repo[row] ?? -1;
      if (repo < 0) continue;
      if (this.closed[row] === 1) closed += 1;
      else open += 1;
      byIndex.set(repo, (byIndex.get(repo) ?? 0) + 1);
    }
    const byRepo = new Map<string, number>();
    for (const [repo, n] of byIndex) byRepo.set(this.tables.repos.list[repo] ?? "", n);
    return { rows: this.index.size, open, closed, byRepo };
  }

  /** The rows kept whole, outside the packed shape (the only ones a reader must check). */
  looseEntries(): IterableIterator<[string, Json]> {
    return this.extra.entries();
  }

  *keys(): IterableIterator<string> {
    yield* this.index.keys();
    yield* this.extra.keys();
  }

  [Symbol.iterator](): IterableIterator<[string, Json]> {
    return this.entries();
  }

  private workflowColumns(): WorkflowColumns {
    this.workflow ??= new WorkflowColumns(this.status.length);
    return this.workflow;
  }

  /** Whether the slice columns can take the names of `value`'s slices (MAX_SLICE_COLUMNS). */
  private sliceRoom(value: JsonObject): boolean {
    const slices = value["slices"];
    return !isObject(slices) || this.sliceColumns().room(Object.keys(slices));
  }

  private sliceColumns(): SliceColumns {
    this.slices ??= new SliceColumns(this.status.length);
    return this.slices;
  }

  private dropRow(id: string): boolean {
    const row = this.index.get(id);
    if (row === undefined) return false;
    this.index.delete(id);
    this.ids[row] = undefined;
    this.hash[row] = "";
    // The strings are let go now, not when the row is reused.
    this.slices?.clear(row);
    this.free.push(row);
    return true;
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if (this.end === this.status.length) this.grow(this.end * 2);
    return this.end++;
  }

  private grow(capacity: number): void {
    const grown = <T extends Uint8Array | Uint16Array | Int32Array | Float64Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(capacity);
      b.set(a);
      return b;
    };
    this.status = grown(this.status, (n) => new Uint16Array(n));
    this.severity = grown(this.severity, (n) => new Uint8Array(n));
    this.asset = grown(this.asset, (n) => new Int32Array(n));
    this.repo = grown(this.repo, (n) => new Int32Array(n));
    this.number = grown(this.number, (n) => new Int32Array(n));
    this.closed = grown(this.closed, (n) => new Uint8Array(n));
    this.base = grown(this.base, (n) => new Int32Array(n));
    this.linked = grown(this.linked, (n) => new Uint8Array(n));
    this.updated = grown(this.updated, (n) => new Float64Array(n));
    this.issueId = grown(this.issueId, (n) => new Float64Array(n));
    this.workflow?.grow(capacity);
    this.slices?.grow(capacity);
  }

  /** `value` fits (checked by the caller). */
  private write(row: number, value: JsonObject): void {
    const t = this.tables;
    this.status[row] = t.statuses.of(value["status"] as string);
    this.severity[row] = value["severity"] as number;
    const assetId = value["assetId"];
    this.asset[row] = typeof assetId === "string" ? t.assets.of(assetId) : -1;
    const updatedAt = value["updatedAt"];
    this.updated[row] = typeof updatedAt === "string" ? (isoMs(updatedAt) ?? 0) : 0;
    const issue = value["issue"];
    if (isObject(issue)) {
      const repo = issue["repo"] as string;
      const number = issue["number"] as number;
      const url = issue["url"] as string;
      this.repo[row] = t.repos.of(repo);
      this.number[row] = number;
      this.closed[row] = issue["state"] === "closed" ? 1 : 0;
      this.hash[row] = issue["hash"] as string;
      this.base[row] = t.bases.of(url.slice(0, url.length - `/${repo}/issues/${number}`.length));
      const id = issue["id"];
      this.issueId[row] = typeof id === "number" ? id : 0;
    } else {
      this.repo[row] = -1;
      this.number[row] = 0;
      this.closed[row] = 0;
      this.hash[row] = "";
      this.base[row] = -1;
      this.issueId[row] = 0;
    }
    this.linked[row] = value["link"] === undefined ? 0 : 1;
    const slices = value["slices"];
    if (this.slices !== null || slices !== undefined) this.sliceColumns().write(row, slices);
    if (this.workflow === null && WORKFLOW_KEYS.every((key) => value[key] === undefined)) return;
    this.workflowColumns().write(row, value, t.milestones);
  }

  private materialize(row: number): JsonObject {
    const t = this.tables;
    const asset = this.asset[row] ?? -1;
    const value: JsonObject = {
      status: t.statuses.list[this.status[row] ?? 0] ?? "",
      severity: this.severity[row] ?? 0,
      assetId: asset < 0 ? null : (t.assets.list[asset] ?? null),
    };
    const repoIndex = this.repo[row] ?? -1;
    if (repoIndex >= 0) {
      const repo = t.repos.list[repoIndex] ?? "";
      const number = this.number[row] ?? 0;
      value["issue"] = {
        repo,
        number,
        url: `${t.bases.list[this.base[row] ?? 0] ?? ""}/${repo}/issues/${number}`,
        state: this.closed[row] === 1 ? "closed" : "open",
        hash: this.hash[row] ?? "",
      };
      const id = this.issueId[row] ?? 0;
      if (id > 0) value["issue"]["id"] = id;
      if (this.linked[row] === 1) value["link"] = `${repo}#${number}`;
    }
    const updated = this.updated[row] ?? 0;
    if (updated > 0) value["updatedAt"] = new Date(updated).toISOString();
    this.workflow?.read(row, value, t.milestones.list);
    this.slices?.read(row, value);
    return value;
  }

  /**
   * The snapshot's `threat-3` block members (snapshot-threat-codec.ts documents the format), `chunk`
   * cells at a time, pausing in between: columns straight from the table, other values in `raw`.
   */
  async members(chunk: number, pause: () => Promise<void>, taggers?: SliceTaggers): Promise<string[]> {
    const rows = Int32Array.from(this.index.values());
    const t = this.tables;
    const cell: Record<string, (row: number) => Json> = {
      ids: (r) => this.ids[r] ?? "",
      status: (r) => this.status[r] ?? 0,
      severity: (r) => this.severity[r] ?? 0,
      asset: (r) => this.asset[r] ?? -1,
      repo: (r) => this.repo[r] ?? -1,
      number: (r) => this.number[r] ?? 0,
      closed: (r) => this.closed[r] ?? 0,
      hash: (r) => this.hash[r] ?? "",
      url: (r) => Math.max(0, this.base[r] ?? 0),
      link: (r) => this.linked[r] ?? 0,
      updated: (r) => this.updated[r] ?? 0,
    };
    // Written only when some issue's id is known: a state without any stays byte for byte as before.
    if (rows.some((r) => (this.issueId[r] ?? 0) > 0)) cell["issueId"] = (r) => this.issueId[r] ?? 0;
    // Likewise the workflow columns and the slices, under a codec of their own (`threat-7`,
    // threat-compact.ts): a reader that knows only `threat-4` refuses the file rather than
    // dropping every SLA and slice.
    const columns = this.workflow;
    const workflow = columns !== null && columns.any(rows);
    let sla: ReturnType<typeof compactSla> | null = null;
    if (workflow) {
      Object.assign(cell, columns.cells());
      sla = compactSla(
        rows,
        (r) => columns.sinceMs(r),
        (r) => columns.due[r] ?? 0,
      );
      cell["slaSince"] = sla.since;
      cell["slaDue"] = sla.due;
    }
    const slices = this.slices?.block(rows) ?? null;
    const codec = slices !== null || workflow ? PACKED_CODEC : "threat-4";
    const parts = [`"codec":"${codec}"`];
    // threat-8 packs the columns only the features fill together (threat-compact.ts `colPack`).
    const packed: Record<string, Json> = {};
    const binary: BinaryColumns = {};
    const packedNames: ReadonlySet<string> = new Set(codec === PACKED_CODEC ? PACKED_COLUMNS : []);
    for (const [name, of] of Object.entries(cell)) {
      const offset: number | undefined = (DIGIT_COLUMNS as Record<string, number>)[name];
      const digits = codec === PACKED_CODEC && offset !== undefined ? toDigits(rows, of, offset) : null;
      if (packedNames.has(name)) {
        if (name === "issueId" || name === "slaSince" || name === "slaDue")
          binary[name] = binaryColumn(name, Array.from(rows, of));
        else packed[name] = digits ?? Array.from(rows, of);
        await pause();
        continue;
      }
      if (digits !== null) {
        parts.push(`,"${name}":"${digits}"`);
        await pause();
        continue;
      }
      parts.push(`,"${name}":[`);
      for (let start = 0; start < rows.length; start += chunk) {
        const cells: Json[] = [];
        for (const row of rows.subarray(start, start + chunk)) cells.push(of(row));
        parts.push((start > 0 ? "," : "") + JSON.stringify(cells).slice(1, -1));
        await pause();
      }
      parts.push("]");
    }
    if (codec === PACKED_CODEC) parts.push(`,"colPack":"${await packBytes(columnBytes(packed, binary))}"`);
    if (sla !== null) parts.push(`,"slaBase":${sla.base},"slaSpans":${JSON.stringify(sla.spans)}`);
    if (slices !== null) {
      const packs: string[] = [];
      // Each feature's summary of its slices beside them, where it has a tagger (slice-tags.ts).
      const tags: ([string, string] | null)[] = [];
      for (const [k, of] of slices.columns.entries()) {
        const column = Array.from(rows, (r) => of(r) as string | null);
        await pause();
        packs.push(await packSliceColumn(column));
        const tagger = taggers?.get(slices.names[k] ?? "");
        const tagOfRow = tagger === undefined ? null : this.slices?.tagReader(slices.names[k] ?? "", tagger);
        tags.push(
          tagger === undefined || !tagOfRow ? null : await packTags(tagger.id, rows, tagOfRow, pause, chunk),
        );
      }
      parts.push(`,"sliceNames":${JSON.stringify(slices.names)},"slicePacks":${JSON.stringify(packs)}`);
      if (tags.some((entry) => entry !== null)) parts.push(`,"sliceTags":${JSON.stringify(tags)}`);
    }
    const raw: string[] = [];
    let written = 0;
    for (const entry of this.extra) {
      raw.push((written > 0 ? "," : "") + JSON.stringify(entry));
      if (++written % chunk === 0) await pause();
    }
    // threat-8 packs them too (threat-compact.ts `rawPack`).
    if (codec === PACKED_CODEC && written > 0)
      parts.push(`,"rest":[],"raw":[],"rawPack":"${await packText(`[${raw.join("")}]`)}"`);
    else parts.push(`,"rest":[],"raw":[`, ...raw, "]");
    const lists = {
      repos: t.repos.list,
      statuses: t.statuses.list,
      bases: t.bases.list,
      assets: t.assets.list,
      ...(workflow ? { milestones: t.milestones.list } : {}),
    };
    parts.push(`,${JSON.stringify(lists).slice(1, -1)}`);
    return parts;
  }

  /** Row `i` of a block written as cells when every cell has the packed form; false when not. */
  private writeCells(
    i: number,
    id: string,
    block: ThreatColumns,
    statusOf: number[],
    repoOf: number[],
    baseOf: number[],
    assetOf: number[] | null,
    milestoneOf: readonly number[],
  ): boolean {
    const status = statusOf[block.status[i] as number];
    const sev = block.severity[i];
    const asset = block.asset[i];
    const repo = block.repo[i];
    const link = block.link[i];
    const updated = block.updated[i];
    if (status === undefined || !isInt(sev) || sev < 0 || sev > MAX_SEVERITY) return false;
    let assetIndex = -1;
    if (assetOf !== null) {
      if (asset !== -1) {
        const known = typeof asset === "number" ? assetOf[asset] : undefined;
        if (known === undefined) return false;
        assetIndex = known;
      }
    } else if (typeof asset === "string") assetIndex = this.tables.assets.of(asset);
    else if (asset !== null) return false;
    if (!(isInt(updated) && updated > 0 && updated <= MAX_TIME_MS)) return false;
    let repoIndex = -1;
    let number = 0;
    let closed = 0;
    let hash = "";
    let base = -1;
    if (repo !== -1) {
      const r = repoOf[repo as number];
      const n = block.number[i];
      const c = block.closed[i];
      const h = block.hash[i];
      const b = baseOf[block.url[i] as number];
      if (r === undefined || b === undefined || !isInt(n) || n <= 0 || n > MAX_INT32) return false;
      if ((c !== 0 && c !== 1) || typeof h !== "string") return false;
      [repoIndex, number, closed, hash, base] = [r, n, c, h, b];
    }
    if (!(link === 0 || (link === 1 && repoIndex >= 0))) return false;
    // Snapshots written before the column have none: every id is then unknown (0).
    const issueId = block.issueId?.[i] ?? 0;
    if (!(issueId === 0 || (repoIndex >= 0 && isIssueId(issueId)))) return false;
    if (!cellsFit(block, i, milestoneOf.length) || !sliceCellsFit(block, i)) return false;
    if (block.slices !== undefined && !this.sliceColumns().room(sliceNamesAt(block, i))) return false;
    const row = this.allocate();
    const before = this.index.size;
    this.index.set(id, row);
    // The encoder writes each id once: a repeated one is a damaged snapshot, not a newer value.
    if (this.index.size === before) throw new RowError(`threat ${id} appears twice`);
    this.ids[row] = id;
    this.status[row] = status;
    this.severity[row] = sev;
    this.asset[row] = assetIndex;
    this.repo[row] = repoIndex;
    this.number[row] = number;
    this.closed[row] = closed;
    this.hash[row] = hash;
    this.base[row] = base;
    this.linked[row] = link;
    this.updated[row] = updated;
    this.issueId[row] = issueId;
    if (this.workflow !== null || WORKFLOW_COLUMNS.some((name) => block[name] !== undefined))
      this.workflowColumns().copyCells(row, block, i, milestoneOf);
    if (this.slices !== null || block.slices !== undefined) this.sliceColumns().copyCells(row, block, i);
    return true;
  }

  /**
   * writeCells for a whole block at once (not `threat-3`): the columns are looked up once, the
   * slices' target columns made once, and each row's cells checked inline, which took a third of
   * the load of 100,000 threats with every feature on. The same checks as writeCells; false when
   * a row's cells are not the packed form (the caller decodes it whole). Null when the block's
   * slice names do not all get a column (then writeCells takes the rows one by one).
   */
  private fastCells(
    block: ThreatColumns,
    statusOf: readonly number[],
    repoOf: readonly number[],
    baseOf: readonly number[],
    assetOf: readonly number[],
    milestoneOf: readonly number[],
    /** threat-8's: each row's index in the block is noted here (its slices are read from there). */
    indexOf: Int32Array | null,
  ): ((i: number, id: string) => boolean) | null {
    const sliceCells = block.slices ?? null;
    const sliceTargets = sliceCells === null ? null : this.sliceColumns().columnsOf(block.sliceNames ?? []);
    if (sliceCells !== null && sliceTargets === null) return null;
    const { status, severity, asset, repo, number, closed, hash, url, link, updated } = block;
    const issueIds = block.issueId ?? null;
    const sinceCells = block.slaSince ?? null;
    const dueCells = block.slaDue ?? null;
    const sinceBinary = sinceCells instanceof Float64Array;
    const dueBinary = dueCells instanceof Int32Array;
    const compactSla = isCompactCodec(block.codec);
    const slaBase = block.slaBase ?? 0;
    const spans = block.slaSpans ?? [];
    const breach = block.slaBreach ?? null;
    const milestone = block.slaMilestone ?? null;
    const occurrence = block.occurrence ?? null;
    const wf = WORKFLOW_COLUMNS.some((name) => block[name] !== undefined) ? this.workflowColumns() : null;
    const milestones = milestoneOf.length;
    return (i, id) => {
      const st = statusOf[status[i] as number];
      const sev = severity[i];
      if (st === undefined || typeof sev !== "number" || !(sev >= 0 && sev <= MAX_SEVERITY) || sev % 1 !== 0)
        return false;
      const a = asset[i];
      let assetIndex = -1;
      if (a !== -1) {
        const known = typeof a === "number" ? assetOf[a] : undefined;
        if (known === undefined) return false;
        assetIndex = known;
      }
      const up = updated[i];
      if (!(typeof up === "number" && up > 0 && up <= MAX_TIME_MS && up % 1 === 0)) return false;
      const r = repo[i];
      let repoIndex = -1;
      let n: unknown = 0;
      let c: unknown = 0;
      let h: unknown = "";
      let b: number | undefined = -1;
      if (r !== -1) {
        repoIndex = repoOf[r as number] ?? -1;
        n = number[i];
        c = closed[i];
        h = hash[i];
        b = baseOf[url[i] as number];
        if (
          repoIndex < 0 ||
          b === undefined ||
          typeof n !== "number" ||
          !(n > 0 && n <= MAX_INT32) ||
          n % 1 !== 0
        )
          return false;
        if ((c !== 0 && c !== 1) || typeof h !== "string") return false;
      }
      const l = link[i];
      if (!(l === 0 || (l === 1 && repoIndex >= 0))) return false;
      const issueId = issueIds === null ? 0 : issueIds[i];
      if (!(issueId === 0 || (repoIndex >= 0 && isIssueId(issueId)))) return false;
      // The workflow cells, as cellsFit checks them.
      const occ = occurrence === null ? 0 : occurrence[i];
      if (!(typeof occ === "number" && occ >= 0 && occ <= MAX_INT32 && occ % 1 === 0)) return false;
      // threat-7's SLA cells are read in place (start after the base, due as a span's index),
      // into plain numbers: no time is boxed per row.
      // threat-8's binary cells say "none" as NaN and -1 (column-pack.ts).
      let sc = sinceCells === null ? null : sinceCells[i];
      if (sinceBinary && sc !== sc) sc = null;
      let dc = dueCells === null ? null : dueCells[i];
      if (dueBinary && dc === -1) dc = null;
      const br = breach === null ? 0 : breach[i];
      const ms = milestone === null ? -1 : milestone[i];
      const hasSla = sc !== null;
      let since = 0;
      let due = 0;
      if (!hasSla) {
        if (!(dc === null && br === 0 && ms === -1)) return false;
      } else {
        if (typeof sc !== "number" || typeof dc !== "number") return false;
        if (compactSla) {
          const span = dc >= 0 && dc % 1 === 0 ? spans[dc] : undefined;
          if (!(sc >= 0 && sc % 1 === 0) || span === undefined) return false;
          since = slaBase + sc;
          due = since + span;
        } else {
          since = sc;
          due = dc;
        }
        if (
          !(isTimeCell(since) && isTimeCell(due) && (br === 0 || br === 1 || br === 2)) ||
          !(ms === -1 || (typeof ms === "number" && ms >= 0 && ms < milestones && ms % 1 === 0))
        )
          return false;
      }
      if (sliceCells !== null)
        for (const cells of sliceCells) {
          const cell = cells[i];
          if (cell !== null && typeof cell !== "string") return false;
        }
      const row = this.allocate();
      const before = this.index.size;
      this.index.set(id, row);
      // The encoder writes each id once: a repeated one is a damaged snapshot, not a newer value.
      if (this.index.size === before) throw new RowError(`threat ${id} appears twice`);
      this.ids[row] = id;
      this.status[row] = st;
      this.severity[row] = sev;
      this.asset[row] = assetIndex;
      this.repo[row] = repoIndex;
      this.number[row] = n as number;
      this.closed[row] = c as number;
      this.hash[row] = h as string;
      this.base[row] = b;
      this.linked[row] = l;
      this.updated[row] = up;
      this.issueId[row] = issueId;
      if (wf !== null) {
        wf.occurrence[row] = occ;
        if (!hasSla) {
          wf.since[row] = Number.NaN;
          wf.due[row] = 0;
          wf.breach[row] = 0;
          wf.milestone[row] = -1;
        } else {
          wf.since[row] = since;
          wf.due[row] = due;
          wf.breach[row] = br as number;
          wf.milestone[row] = (ms as number) < 0 ? -1 : (milestoneOf[ms as number] ?? -1);
        }
      }
      if (indexOf !== null) indexOf[row] = i;
      if (sliceCells !== null && sliceTargets !== null)
        for (let k = 0; k < sliceCells.length; k++) {
          const cell = sliceCells[k]?.[i];
          const target = sliceTargets[k];
          if (typeof cell === "string" && target !== undefined) target[row] = cell;
        }
      return true;
    };
  }

  /**
   * A table from a snapshot's `threat-3` block. Every cell is checked with plain type checks
   * (a zod parse per row doubled the load at 100k); a bad cell is a RowError.
   */
  static decode(compact: ThreatColumnsDoc): ThreatTable {
    let block = unpackCompact(compact);
    const table = new ThreatTable();
    // threat-8's slice columns, each read from its pack when first used (slice-pack.ts); a row's
    // index in the block is noted as it is copied in.
    const packs = slicePacksOf(block);
    const indexOf = packs === null ? null : new Int32Array(block.ids.length).fill(-1);
    if (
      packs !== null &&
      indexOf !== null &&
      !table.sliceColumns().load(block.sliceNames ?? [], packs, indexOf, sliceTagsOf(block))
    )
      // More names than columns (a hand-made file): read as threat-7's, row by row.
      block = { ...block, slices: packs.map((column) => column.all()) };
    const lazySlices = block.slices === undefined ? indexOf : null;
    // A compact block's SLA cells in threat-6's form (and threat-8's slices as arrays), made only
    // if some row is decoded whole.
    let expanded: ThreatColumns | null = null;
    const whole = (): ThreatColumns =>
      (expanded ??= expandCompact(
        block.slices === undefined && packs !== null
          ? { ...block, slices: packs.map((c) => c.all()) }
          : block,
      ));
    const { ids, status, severity, asset, repo, number, closed, hash, url, link, updated } = block;
    const count = ids.length;
    for (const [name, column] of Object.entries({
      status,
      severity,
      asset,
      repo,
      number,
      closed,
      hash,
      url,
      link,
      updated,
    }))
      if (column.length !== count)
        throw new RowError(`column ${name} has ${column.length} cells, not ${count}`);
    for (const name of WORKFLOW_COLUMNS) {
      const column = block[name];
      if (column !== undefined && column.length !== count)
        throw new RowError(`column ${name} has ${column.length} cells, not ${count}`);
    }
    const sliceProblem = lazySlices === null ? checkSliceBlock(block, count) : null;
    if (sliceProblem !== null) throw new RowError(sliceProblem);

    const rest = new Map<number, JsonObject>(block.rest);
    table.grow(Math.max(INITIAL_CAPACITY, count));
    const t = table.tables;
    const statusOf = block.statuses.map((s) => t.statuses.of(s));
    const repoOf = block.repos.map((s) => t.repos.of(s));
    const baseOf = block.bases.map((s) => t.bases.of(s));
    const milestoneOf = (block.milestones ?? []).map((s) => t.milestones.of(s));
    // threat-4 and -5 name assets by index into its table; threat-3 (version 2) by the id itself.
    const assetOf = block.codec !== "threat-3" ? (block.assets ?? []).map((s) => t.assets.of(s)) : null;
    const fast =
      assetOf !== null
        ? table.fastCells(block, statusOf, repoOf, baseOf, assetOf, milestoneOf, lazySlices)
        : null;
    const cellsBlock = fast === null ? whole() : block;
    for (let i = 0; i < count; i++) {
      const id = ids[i];
      if (typeof id !== "string") throw new RowError(`id ${i} is not a string`);
      // The common row goes straight into the columns; any other is decoded whole and set.
      if (
        !rest.has(i) &&
        (fast !== null
          ? fast(i, id)
          : table.writeCells(i, id, cellsBlock, statusOf, repoOf, baseOf, assetOf, milestoneOf))
      )
        continue;
      const value = decodeRow(whole(), i, id);
      const more = rest.get(i);
      table.set(id, more === undefined ? value : { ...value, ...more });
    }
    for (const [id, value] of block.raw) table.set(id, value);
    table.floorPackedSla();
    return table;
  }

  /** `slaFloor` lowered to the packed rows' (a loaded table's: the rows set one by one lowered it). */
  private floorPackedSla(): void {
    const workflow = this.workflow;
    if (workflow === null) return;
    const { since, due, breach } = workflow;
    let floor = this.slaFloor;
    for (let row = 0; row < this.end; row++) {
      const at = due[row] ?? Number.NaN;
      if (
        at < floor &&
        since[row] === since[row] &&
        breach[row] === 0 &&
        this.ids[row] !== undefined &&
        (this.repo[row] ?? -1) >= 0 &&
        this.closed[row] !== 1
      )
        floor = at;
    }
    this.slaFloor = floor;
  }
}

/**
 * A `threat-8` block's slice columns, each checked (its header and CRC-32: slice-pack.ts) but not
 * inflated; null when the block has none. RowError when the names and packs do not pair up.
 */
function slicePacksOf(block: ThreatColumns): PackedSliceColumn[] | null {
  const names = block.sliceNames;
  const packs = block.slicePacks;
  if (packs === undefined) return null;
  if (names === undefined || names.length !== packs.length)
    throw new RowError(`${packs.length} slice columns for ${names?.length ?? 0} names`);
  if (new Set(names).size !== names.length) throw new RowError("a slice name appears twice");
  return packs.map((pack, k) => PackedSliceColumn.parse(names[k] ?? "", pack, block.ids.length));
}

/**
 * A `threat-8` block's slice tags (slice-tags.ts), unpacked when first counted; empty when it has
 * none. RowError when they do not pair up with its slice columns.
 */
function sliceTagsOf(block: ThreatColumns): (LoadedTags | null)[] {
  const entries = block.sliceTags;
  if (entries === undefined) return [];
  const names = block.sliceNames ?? [];
  if (block.slicePacks === undefined || entries.length !== names.length)
    throw new RowError(
      `${entries.length} slice tag columns for ${block.slicePacks?.length ?? 0} slice columns`,
    );
  return entries.map((entry) =>
    entry === null ? null : new LoadedTags(entry[0], entry[1], block.ids.length),
  );
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

function at(list: readonly string[], index: number, what: string): string {
  const value = list[index];
  if (value === undefined) throw new RowError(`${what} index ${index} is not in the table`);
  return value;
}

/** Row `i` of a `threat-3` block as its JSON value (cells checked). */
function decodeRow(block: ThreatColumns, i: number, id: string): JsonObject {
  const malformed = (what: string): RowError => new RowError(`threat ${id}: ${what} is malformed`);
  const statusIndex = block.status[i];
  const sev = block.severity[i];
  const cell = block.asset[i];
  let assetId: string | null;
  if (block.codec !== "threat-3") {
    if (cell === -1) assetId = null;
    else if (isIndex(cell)) assetId = at(block.assets ?? [], cell, "asset");
    else throw malformed("assetId");
  } else if (cell === null || typeof cell === "string") assetId = cell;
  else throw malformed("assetId");
  if (!isIndex(statusIndex)) throw malformed("status");
  if (!isInt(sev)) throw malformed("severity");
  const value: JsonObject = { status: at(block.statuses, statusIndex, "status"), severity: sev, assetId };
  let repoNumber: string | null = null;
  const repoIndex = block.repo[i];
  if (repoIndex !== -1) {
    const n = block.number[i];
    const c = block.closed[i];
    const h = block.hash[i];
    const u = block.url[i];
    if (!isIndex(repoIndex) || !isInt(n) || (c !== 0 && c !== 1) || typeof h !== "string")
      throw malformed("issue");
    const name = at(block.repos, repoIndex, "repo");
    let issueUrl: string;
    if (isIndex(u)) issueUrl = `${at(block.bases, u, "url base")}/${name}/issues/${n}`;
    else if (typeof u === "string") issueUrl = u;
    else throw malformed("issue url");
    value["issue"] = { repo: name, number: n, url: issueUrl, state: c === 1 ? "closed" : "open", hash: h };
    const issueId = block.issueId?.[i] ?? 0;
    if (issueId !== 0) {
      if (!isIssueId(issueId)) throw malformed("issue id");
      value["issue"]["id"] = issueId;
    }
    repoNumber = `${name}#${n}`;
  }
  const l = block.link[i];
  if (l === 1) {
    if (repoNumber === null) throw new RowError(`threat ${id} has a derived link but no issue`);
    value["link"] = repoNumber;
  } else if (typeof l === "string") value["link"] = l;
  else if (l !== 0) throw malformed("link");
  const t = block.updated[i];
  if (typeof t === "number" && Number.isInteger(t) && t > 0) value["updatedAt"] = new Date(t).toISOString();
  else if (typeof t === "string") value["updatedAt"] = t;
  else if (t !== 0) throw malformed("updatedAt");
  const workflow = readWorkflowCells(block, i, block.milestones ?? []);
  if (workflow === null) throw malformed("sla or occurrence");
  const slices = readSliceCells(block, i);
  if (slices === null) throw malformed("slices");
  return { ...value, ...workflowJson(workflow), ...(slices ? { slices } : {}) };
}
