/** One change log per stream (list behaviour 1–2), compacted to each item's latest; a cursor is an index. */

/** A record that knows where its latest version sits in its log (-1: never logged). */
export interface Logged {
  logIndex: number;
}

export interface LogEntry<R extends Logged> {
  readonly item: R;
  /** Processing time in ms; never decreases along the log. */
  readonly atMs: number;
  /** The ISO form of `atMs`, the `stream_position` on the wire. */
  readonly position: string;
  /** A re-delivery of an unchanged version (at-least-once); never re-delivered again. */
  readonly replay: boolean;
  live: boolean;
}

interface PageScan<T> {
  items: T[];
  /** Index to continue from. */
  next: number;
  /** True when the scan stopped at the end of the log with nothing withheld or left over. */
  atEnd: boolean;
}

interface ScanOptions<R extends Logged, T> {
  limit: number;
  nowMs: number;
  /** Changes processed less than this long ago are not delivered yet (spec, list rule 4). */
  withholdRecentMs: number;
  /** Turns a live entry into a page item, or null when the item is hidden (e.g. a removed asset). */
  accept: (entry: LogEntry<R>) => T | null;
}

/** How many entries one page may skip (compacted or hidden) before it returns short, with a cursor. */
const SKIP_BUDGET = 5_000;

export class ChangeLog<R extends Logged> {
  private readonly entries: Array<LogEntry<R>> = [];
  private lastMs = 0;
  private lastPosition = new Date(0).toISOString();

  get length(): number {
    return this.entries.length;
  }

  /** Records a change of `item` processed at `atMs` (clamped so positions never go backwards). */
  append(item: R, atMs: number, replay = false): LogEntry<R> {
    const ms = Math.max(atMs, this.lastMs);
    // Ties are common (batches, bulk changes): share the position string.
    if (ms !== this.lastMs || this.entries.length === 0) this.lastPosition = new Date(ms).toISOString();
    this.lastMs = ms;
    const previous = this.entries[item.logIndex];
    if (previous !== undefined) previous.live = false;
    const entry: LogEntry<R> = { item, atMs: ms, position: this.lastPosition, replay, live: true };
    item.logIndex = this.entries.length;
    this.entries.push(entry);
    return entry;
  }

  /** The `stream_position` of the latest version of `item`, or null if it was never logged. */
  positionOf(item: R): string | null {
    return this.entries[item.logIndex]?.position ?? null;
  }

  scan<T>(from: number, options: ScanOptions<R, T>): PageScan<T> {
    const items: T[] = [];
    let index = from;
    let skipped = 0;
    while (items.length < options.limit && index < this.entries.length && skipped < SKIP_BUDGET) {
      const entry = this.entries[index];
      if (entry === undefined) break;
      if (options.withholdRecentMs > 0 && options.nowMs - entry.atMs < options.withholdRecentMs) {
        // The log is in processing order: everything after this entry is recent too.
        return { items, next: index, atEnd: false };
      }
      index += 1;
      const item = entry.live ? options.accept(entry) : null;
      if (item === null) skipped += 1;
      else items.push(item);
    }
    return { items, next: index, atEnd: index >= this.entries.length };
  }
}
