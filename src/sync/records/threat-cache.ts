import type { ThreatView } from "../render/index.js";

/** What one threat looks like on the platform during this run (kept only while work is due). */
export interface CachedThreat {
  view: ThreatView;
  link: { externalId: string; url: string } | null;
}

/**
 * The run's cache of threats read, bounded by bytes as well as by count: a
 * backlog of threats with 100 KB descriptions held by count alone took hundreds of megabytes.
 * The oldest entry goes first; what falls out is read again (one GET) when its turn comes.
 */
export class ThreatCache extends Map<string, CachedThreat> {
  private bytes = 0;
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly maxBytes: number,
    private readonly maxCount: number,
    /** A dry run prints every queued action from what it read, so it keeps everything. */
    private readonly unbounded = false,
  ) {
    super();
  }

  /** Bytes held, estimated as UTF-16 (two bytes a character) of the text the entry holds. */
  get heldBytes(): number {
    return this.bytes;
  }

  override set(threatId: string, threat: CachedThreat): this {
    this.delete(threatId);
    super.set(threatId, threat);
    const size = 2 * (threatId.length + JSON.stringify(threat).length);
    this.sizes.set(threatId, size);
    this.bytes += size;
    if (!this.unbounded && (this.size > this.maxCount || this.bytes > this.maxBytes)) this.evict(threatId);
    return this;
  }

  override delete(threatId: string): boolean {
    this.bytes -= this.sizes.get(threatId) ?? 0;
    this.sizes.delete(threatId);
    return super.delete(threatId);
  }

  override clear(): void {
    this.sizes.clear();
    this.bytes = 0;
    super.clear();
  }

  /** Drops the oldest entries while past either bound, never the one just added (asked only when past one). */
  private evict(keep: string): void {
    for (const oldest of this.keys()) {
      if (oldest === keep) return;
      this.delete(oldest);
      if (this.size <= this.maxCount && this.bytes <= this.maxBytes) return;
    }
  }
}
