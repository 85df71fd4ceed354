import type { RequestCount } from "../../src/shared/index.js";
import {
  Asset,
  PlatformDeferredError,
  PlatformProblem,
  Threat,
  type ParsedItem,
  type PlatformClient,
  type StreamPage,
  type UnchangedTest,
} from "../../src/platform/index.js";

/**
 * An in-memory platform behind the PlatformClient interface, for fast engine and property tests.
 * It keeps the spec's rules the engine relies on: a change log read oldest first, every successful
 * write re-delivered (echo), auto-verified threats answer `pending` to `solved`, threats of removed
 * assets leave the API. `failAt` makes one numbered call fail, before or after it takes effect.
 */

export interface ThreatInput {
  id: string;
  status?: string;
  name?: string;
  severity?: string;
  module?: string;
  asset_id?: string;
  [key: string]: unknown;
}

/** What the platform client throws for 404 `resource/not-found` (the fields the engine reads). */
export class NotFoundProblem extends Error {
  readonly type = "resource/not-found";
  readonly status = 404;
  constructor() {
    super("404 resource/not-found");
  }
}

export class CrashError extends Error {
  constructor(readonly call: number) {
    super(`injected failure at call ${call}`);
  }
}

/**
 * Counts a fake's calls and fails one of them on request, before or after it takes effect (a lost
 * response); once `isDead()` answers true every call fails, as in a process that was killed.
 */
export abstract class FailingFake {
  calls = 0;
  writes = 0;
  /** `error`: what the failing call throws instead of a crash (default: a CrashError). */
  failAt: { call: number; after: boolean; error?: () => Error } | null = null;
  /** Set by a test harness: once it answers true every call fails (the process is dead). */
  isDead: () => boolean = () => false;
  /** Called when `failAt` fires. */
  onFail: () => void = () => {};

  protected async call<T>(fn: () => T, write = false): Promise<T> {
    this.calls += 1;
    const n = this.calls;
    if (this.isDead()) throw new CrashError(n);
    const fail = this.failAt?.call === n ? this.failAt : null;
    if (fail) this.onFail();
    if (fail && !fail.after) throw fail.error?.() ?? new CrashError(n);
    const result = fn();
    if (write) this.writes += 1;
    if (fail) throw fail.error?.() ?? new CrashError(n);
    return result;
  }
}

export class FakePlatform extends FailingFake implements PlatformClient {
  readonly threats = new Map<string, Threat>();
  readonly assets = new Map<string, Asset>();
  private readonly threatLog: Threat[] = [];
  private readonly assetLog: Asset[] = [];
  private tick = 0;
  /** Call number to fail, and whether the write lands before the failure (a lost response). */
  autoVerify: (threat: Threat) => boolean = (t) => t["module"] === "vulnerability";
  pageSize = 3;
  /** A walk ends on an empty page, as the platform's stream may (its last page of items names a next cursor). */
  endOnEmptyPage = false;
  /** Walks of each stream begun (each begins with one request carrying the saved cursor). */
  readonly streamRequests = { threats: 0, assets: 0 };
  /** Called after each page a walk yields (a test can stop the engine there). */
  afterPage: (kind: "threats" | "assets") => void = () => {};
  /**
   * The platform's pause as the real client keeps it (its Retry-After gate, longer than it waits in
   * place): until `until` on the engine's clock no call is sent, each ends as the client's
   * PlatformDeferredError, and stats() says until when.
   */
  pause: { until: number; now: () => number } | null = null;

  private pausedUntil(): number | undefined {
    return this.pause !== null && this.pause.now() < this.pause.until ? this.pause.until : undefined;
  }

  protected override async call<T>(fn: () => T, write = false): Promise<T> {
    const until = this.pausedUntil();
    if (until !== undefined) throw new PlatformDeferredError({ method: "ANY", path: "/v1/…" }, until);
    return super.call(fn, write);
  }

  private stamp(): string {
    this.tick += 1;
    return new Date(Date.UTC(2026, 0, 1) + this.tick * 1000).toISOString();
  }

  /** Adds or changes a threat (the platform's own processing) and logs it on the stream. */
  put(input: ThreatInput, onStream = true): Threat {
    const previous = this.threats.get(input.id);
    const threat = Threat.parse({
      status: "unsolved",
      name: `Threat ${input.id.slice(0, 8)}`,
      severity: "high",
      module: "web",
      asset_id: "00000000-0000-4000-8000-00000000a001",
      module_data: null,
      external_references: [],
      ...previous,
      ...input,
      updated_at: this.stamp(),
      stream_position: null,
    });
    this.threats.set(threat.id, threat);
    if (onStream) this.threatLog.push(threat);
    return threat;
  }

  putAsset(id: string, fields: Record<string, unknown> = {}): Asset {
    const asset = Asset.parse({
      name: `asset-${id.slice(-4)}`,
      type: "domain",
      ...this.assets.get(id),
      ...fields,
      id,
      updated_at: this.stamp(),
      stream_position: null,
      deleted: fields["deleted"] ?? false,
      deleted_at: fields["deleted"] === true ? this.stamp() : null,
    });
    this.assets.set(id, asset);
    this.assetLog.push(asset);
    if (!asset.deleted) {
      // Threats of a restored asset come back on the stream.
      for (const t of this.threats.values()) if (t["asset_id"] === id) this.threatLog.push(t);
    }
    return asset;
  }

  /** Puts an item on the threat stream that does not parse (the client reports it, with its id). */
  putMalformed(raw: Record<string, unknown>): void {
    this.malformed.set(this.threatLog.length, raw);
    this.threatLog.push(
      Threat.parse({ id: String(raw["id"]), status: "x", updated_at: "x", stream_position: null }),
    );
  }

  private readonly malformed = new Map<number, Record<string, unknown>>();
  /** Ids whose single read fails (a malformed body), until removed. */
  readonly unreadable = new Set<string>();

  /** Re-delivers the current version of a threat (at-least-once delivery). */
  redeliver(id: string): void {
    const t = this.threats.get(id);
    if (t) this.threatLog.push(t);
  }

  private visible(t: Threat): boolean {
    const asset = this.assets.get(String(t["asset_id"]));
    return !asset?.deleted;
  }

  private async *walk<T extends { stream_position?: unknown }>(
    kind: "threats" | "assets",
    log: T[],
    cursor: string | null,
    keep: (item: T) => boolean,
    unchanged?: UnchangedTest,
  ): AsyncIterable<StreamPage<T>> {
    this.streamRequests[kind] += 1;
    // Spec list rule 5: a cursor this platform did not issue answers 400 request/invalid-cursor.
    if (cursor !== null && !(/^\d+$/.test(cursor) && Number(cursor) <= log.length)) {
      await this.call(() => {
        throw new PlatformProblem({
          method: "GET",
          path: `/v1/${kind}`,
          status: 400,
          problem: { type: "request/invalid-cursor", status: 400, detail: "the cursor is not valid" },
          requestId: `req-${this.calls}`,
        });
      });
    }
    let index = cursor === null ? 0 : Number(cursor);
    let resume = cursor;
    for (let guard = 0; guard < 100_000; guard += 1) {
      const start = index;
      const page = await this.call(() => log.slice(start, start + this.pageSize));
      index += page.length;
      const emptyLast = this.endOnEmptyPage && page.length > 0;
      const next = index < log.length || emptyLast ? String(index) : null;
      // The end of the stream still hands back a cursor to resume from (spec list rule 6).
      const resumeCursor = next ?? String(index);
      resume = resumeCursor;
      // Like the client: an item the caller already holds in this version is not parsed.
      const known: string[] = [];
      yield {
        items: page.flatMap((value, i): ParsedItem<T>[] => {
          const bad = kind === "threats" ? this.malformed.get(start + i) : undefined;
          const id = bad ? null : (unchanged?.(value) ?? null);
          if (id !== null) {
            if (keep(value)) known.push(id);
            return [];
          }
          if (bad) {
            const badId = typeof bad["id"] === "string" ? bad["id"] : null;
            return [{ ok: false, id: badId, raw: bad, error: "status: expected a string" }];
          }
          return keep(value) ? [{ ok: true, value: { ...value, stream_position: `p${start + i}` } }] : [];
        }),
        unchanged: known,
        nextCursor: next,
        resumeCursor: resume,
      };
      this.afterPage(kind);
      if (next === null) return;
    }
  }

  streamThreats(cursor: string | null, unchanged?: UnchangedTest): AsyncIterable<StreamPage<Threat>> {
    return this.walk("threats", this.threatLog, cursor, (t) => this.visible(t), unchanged);
  }

  streamAssets(cursor: string | null): AsyncIterable<StreamPage<Asset>> {
    return this.walk("assets", this.assetLog, cursor, () => true);
  }

  /** Symmetric relations between assets (spec, "GET /v1/assets/{asset_id}/related" rule 1). */
  private readonly relations = new Map<string, Set<string>>();
  /** Every related walk asked for, by asset id, in order. */
  readonly relatedWalks: string[] = [];
  /** Assets whose related walk fails (a 5xx after the client's retries). */
  readonly relatedFails = new Set<string>();

  relate(a: string, b: string): void {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const set = this.relations.get(x) ?? new Set<string>();
      set.add(y);
      this.relations.set(x, set);
    }
  }

  /** The spec's rules: 404 on the first request for an unknown asset; removed assets never listed. */
  async *relatedAssets(assetId: string): AsyncIterable<StreamPage<Asset>> {
    this.relatedWalks.push(assetId);
    const live = await this.call(() => {
      if (this.relatedFails.has(assetId)) throw new Error("500 server/internal after retries");
      if (!this.assets.has(assetId)) throw new NotFoundProblem();
      return [...(this.relations.get(assetId) ?? [])].flatMap((id) => {
        const asset = this.assets.get(id);
        return asset && !asset.deleted && id !== assetId ? [asset] : [];
      });
    });
    for (let start = 0; start === 0 || start < live.length; start += this.pageSize) {
      const items = live.slice(start, start + this.pageSize).map((value) => ({ ok: true as const, value }));
      const next = start + this.pageSize < live.length ? String(start + this.pageSize) : null;
      yield { items, nextCursor: next, resumeCursor: next };
    }
  }

  getThreat(id: string): Promise<Threat | null> {
    return this.call(() => {
      if (this.unreadable.has(id)) throw new Error("malformed response body");
      const t = this.threats.get(id);
      return t && this.visible(t) ? t : null;
    });
  }

  getAsset(id: string): Promise<Asset | null> {
    return this.call(() => this.assets.get(id) ?? null);
  }

  setStatus(id: string, status: string, statusNote?: string): Promise<Threat> {
    return this.call(() => {
      const t = this.threats.get(id);
      if (!t || !this.visible(t)) throw new NotFoundProblem();
      const effective = status === "solved" && this.autoVerify(t) ? "pending" : status;
      return this.put({ id, status: effective, status_note: statusNote ?? "" });
    }, true);
  }

  /** Every note sent (update-note), in order: what a test checks of the notes' writes. */
  readonly notesSent: Array<{ id: string; note: string }> = [];

  /**
   * update-note: replaces the note (rule 1), 404 for a threat not there (rule 5); an identical note
   * changes nothing (rule 4), any other is re-delivered on the stream (rule 3). Applied at once: the
   * spec's asynchronous apply (rule 2) is the simulator's.
   */
  updateNote(id: string, note: string): Promise<void> {
    return this.call(() => {
      const t = this.threats.get(id);
      if (!t || !this.visible(t)) throw new NotFoundProblem();
      this.notesSent.push({ id, note });
      if (t["note"] !== note) this.put({ id, note });
    }, true);
  }

  putExternalReference(id: string, system: string, ref: { external_id: string; url: string }): Promise<void> {
    return this.call(() => {
      const t = this.threats.get(id);
      if (!t || !this.visible(t)) throw new NotFoundProblem();
      const others = t.external_references.filter((r) => r.system !== system);
      this.put({ id, external_references: [...others, { system, ...ref, linked_at: this.stamp() }] });
    }, true);
  }

  stats(): {
    tokenRequests: number;
    requests: number;
    retries: number;
    byOutcome: RequestCount[];
    notBefore?: number;
  } {
    // This fake does not tell its calls apart by method or status.
    const notBefore = this.pausedUntil();
    return {
      tokenRequests: 1,
      requests: this.calls,
      retries: 0,
      byOutcome: [],
      ...(notBefore !== undefined ? { notBefore } : {}),
    };
  }

  async close(): Promise<void> {}
}
