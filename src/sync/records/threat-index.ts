import type { ThreatRecord } from "../schema.js";
import type { ThreatRecords } from "./threat-records.js";

/**
 * What the engine looks threats up by, so that no cycle scans every stored threat (a cycle's cost
 * follows its work, not the state's size).
 *
 * Over a writable store (`ThreatRecords.lookups`) the database answers every lookup from its indexes
 * (state/threat-queries.ts): nothing here holds a threat, and `update` has nothing to do, since
 * every change is written to the rows the lookups read. Over a plain state (tests) or a read-only
 * store holding a dry-run's changes in memory, the lookups are maps kept current by
 * state-updates.ts: the repositories counted at start, the lookups by asset and by issue, each
 * feature's due times and `sliceBy` built the first time they are asked for (until then, updates
 * are not applied to them: they are built from the records as they are by then).
 */

/**
 * One feature's clock as the index of due times asks it (features/types.ts `FeatureClock`): when a
 * record is next due (epoch ms; null: nothing waits on the clock), and, where the store can tell it
 * without building records, every stored record's due time at once.
 */
export interface DueSource {
  dueAt(record: ThreatRecord): number | null;
  /** Every stored record's due time (no record built); without it each record is built and asked. */
  scan?(threats: ThreatRecords, visit: (id: string, dueMs: number) => void): void;
}

interface DueTimes {
  source: DueSource;
  /** Threat id → due time (epoch ms), only for the records that wait on this feature's clock. */
  due: Map<string, number>;
}

export class ThreatIndex {
  /** Repository as the records name it → how many mapped issues it holds. */
  private readonly repos = new Map<string, number>();
  /** asset id → ids of its threats. */
  private assets: Map<string, Set<string>> | null = null;
  private issues: Map<string, string> | null = null;
  /** The features' lookups (`sliceBy`), by feature name, each with what it picks of a record. */
  private readonly picked = new Map<string, Lookup>();
  /** Feature name → its due times, for the features whose clock was swept (run/wake-due.ts). */
  private readonly dues = new Map<string, DueTimes>();

  constructor(private readonly threats: ThreatRecords | null = null) {}

  /**
   * The index of `threats`. Its one pass at start counts the repositories (checking the records kept
   * whole), read from the stored columns where the store packs them.
   */
  static build(threats: ThreatRecords): ThreatIndex {
    const index = new ThreatIndex(threats);
    if (threats.lookups) return index;
    threats.scan((_id, _assetId, issue) => {
      if (issue) index.countRepo(issue.repo, 1);
    });
    return index;
  }

  /**
   * Threat id → due time (epoch ms) of the records waiting on one feature's clock, so that its
   * per-cycle sweep reads only these, never every record. Built the first time the feature asks
   * (from its `scan`, or every record's `dueAt`), kept current from then on by asking `dueAt` of
   * each changed record. Over a writable store with the feature's `scan`, read from the store's
   * index of due times at each ask (the clock asks only once something is due) and never kept.
   */
  dueTimes(feature: string, source: DueSource): ReadonlyMap<string, number> {
    const known = this.dues.get(feature);
    if (known !== undefined) return known.due;
    const lookups = this.threats?.lookups;
    if (lookups && this.threats && source.scan) {
      const due = new Map<string, number>();
      source.scan(this.threats, (id, dueMs) => due.set(id, dueMs));
      return due;
    }
    const due = new Map<string, number>();
    if (this.threats && source.scan) source.scan(this.threats, (id, dueMs) => due.set(id, dueMs));
    else if (this.threats) {
      for (const [id, record] of this.threats.entries()) {
        const at = source.dueAt(record);
        if (at !== null) due.set(id, at);
      }
    }
    this.dues.set(feature, { source, due });
    return due;
  }

  /** asset id → ids of its threats. */
  get byAsset(): ReadonlyMap<string, ReadonlySet<string>> {
    const lookups = this.threats?.lookups;
    if (lookups)
      return new StoredLookup((asset) => {
        const ids = lookups.threatsOfAsset(asset);
        return ids.length === 0 ? undefined : new Set(ids);
      }, assetsOf(lookups));
    if (this.assets === null) {
      const assets = new Map<string, Set<string>>();
      this.assets = assets;
      this.threats?.scan((id, assetId) => this.addAsset(id, assetId));
    }
    return this.assets;
  }

  /** `owner/name#N` (repository lower-cased) → the threat whose issue it is. */
  get byIssue(): ReadonlyMap<string, string> {
    const lookups = this.threats?.lookups;
    if (lookups)
      return new StoredLookup(
        (key) => {
          const at = key.lastIndexOf("#");
          const number = Number(key.slice(at + 1));
          return at < 0 || !Number.isInteger(number)
            ? undefined
            : lookups.threatOfIssue(key.slice(0, at), number);
        },
        function* () {
          for (const [id, repo, number] of lookups.issues()) yield [issueKey(repo, number), id];
        },
      );
    if (this.issues === null) {
      const issues = new Map<string, string>();
      this.threats?.scan((id, _asset, issue) => {
        if (issue) issues.set(issueKey(issue.repo, issue.number), id);
      });
      this.issues = issues;
    }
    return this.issues;
  }

  /**
   * Threat id → what a feature finds in its slice, for the threats whose slice holds it: a
   * feature's lookup of its rare data (its clock's sweep reads only these, never every record).
   * Only that feature's slices are read for it (`scanSlices`: its `feature_data` rows, no record
   * built), the first time it is asked for; it is kept current from then on by `pick` of each
   * changed record. `fromSlice` and `pick` find the same value, of the slice's text and of the record.
   */
  sliceBy<T>(
    feature: string,
    fromSlice: (slice: string) => T | undefined,
    pick: (record: ThreatRecord) => T | undefined,
  ): ReadonlyMap<string, T> {
    const known = this.picked.get(feature);
    if (known) return known.values as ReadonlyMap<string, T>;
    const values = new Map<string, T>();
    this.threats?.scanSlices(feature, (id, slice) => {
      const value = fromSlice(slice);
      if (value !== undefined) values.set(id, value);
    });
    // Over a writable store, read afresh from the feature's rows each time (only its slices are read).
    if (!this.threats?.lookups) this.picked.set(feature, { pick, values });
    return values;
  }

  /** The repositories that hold at least one mapped issue. */
  repositories(): string[] {
    return this.threats?.lookups?.repositories() ?? [...this.repos.keys()];
  }

  update(id: string, before: Indexed | undefined, after: ThreatRecord | undefined): void {
    if (this.threats?.lookups) return;
    for (const { pick, values } of this.picked.values()) {
      const value = after === undefined ? undefined : pick(after);
      if (value !== undefined) values.set(id, value);
      else values.delete(id);
    }
    const assetBefore = before?.assetId ?? null;
    const assetAfter = after?.assetId ?? null;
    if (this.assets !== null) {
      if (assetBefore !== assetAfter && assetBefore !== null) {
        const ids = this.assets.get(assetBefore);
        ids?.delete(id);
        if (ids?.size === 0) this.assets.delete(assetBefore);
      }
      this.addAsset(id, assetAfter);
    }
    for (const { source, due } of this.dues.values()) {
      const at = after === undefined ? null : source.dueAt(after);
      if (at === null) due.delete(id);
      else due.set(id, at);
    }
    const issueBefore = before?.issue;
    const issueAfter = after?.issue;
    if (issueBefore?.repo === issueAfter?.repo && issueBefore?.number === issueAfter?.number) return;
    if (issueBefore) {
      const key = issueKey(issueBefore.repo, issueBefore.number);
      if (this.issues?.get(key) === id) this.issues.delete(key);
      this.countRepo(issueBefore.repo, -1);
    }
    if (issueAfter) {
      this.issues?.set(issueKey(issueAfter.repo, issueAfter.number), id);
      this.countRepo(issueAfter.repo, 1);
    }
  }

  private addAsset(id: string, assetId: string | null): void {
    if (assetId === null || this.assets === null) return;
    const ids = this.assets.get(assetId);
    if (ids === undefined) this.assets.set(assetId, new Set([id]));
    else ids.add(id);
  }

  private countRepo(repo: string, by: number): void {
    const n = (this.repos.get(repo) ?? 0) + by;
    if (n > 0) this.repos.set(repo, n);
    else this.repos.delete(repo);
  }
}

/**
 * A lookup the store answers (`get`: one indexed read), as a read-only map; iterating it reads
 * every entry from the store, a page at a time.
 */
class StoredLookup<V> implements ReadonlyMap<string, V> {
  constructor(
    readonly get: (key: string) => V | undefined,
    private readonly all: () => IterableIterator<[string, V]>,
  ) {}

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get size(): number {
    let n = 0;
    for (const _entry of this.all()) n += 1;
    return n;
  }

  entries(): MapIterator<[string, V]> {
    return this.all();
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.all()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.all()) yield value;
  }

  forEach(visit: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.all()) visit(value, key, this);
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.all();
  }
}

/** Every asset with threats, and their ids: a read of every row (no caller iterates it in a cycle). */
function assetsOf(
  lookups: NonNullable<ThreatRecords["lookups"]>,
): () => IterableIterator<[string, ReadonlySet<string>]> {
  return function* () {
    const assets = new Map<string, Set<string>>();
    lookups.scanIssues((id, assetId) => {
      if (assetId === null) return;
      const ids = assets.get(assetId);
      if (ids === undefined) assets.set(assetId, new Set([id]));
      else ids.add(id);
    });
    yield* assets;
  };
}

/** What the index reads of a record. */
type Indexed = Pick<ThreatRecord, "assetId" | "gone"> & {
  issue?: { repo: string; number: number; state?: "open" | "closed" } | undefined;
};

/** A feature's lookup: what it picks of a record, and the threats' values. */
interface Lookup {
  pick: (record: ThreatRecord) => unknown;
  values: Map<string, unknown>;
}

export function issueKey(repo: string, number: number): string {
  return `${repo.toLowerCase()}#${number}`;
}
