import { realSleep, systemClock, type Clock, type Sleep } from "../shared/clock.js";
import type { RequestCount } from "../shared/request-tally.js";
import {
  createSecretRegistry,
  silentLogger,
  type Logger,
  type SecretRegistry,
} from "../observability/index.js";
import { PlatformError, PlatformProblem, PlatformResponseError } from "./errors.js";
import { createApiTransport, type ApiResponse } from "./http.js";
import { Asset, Threat, type SettableStatus } from "./schemas.js";
import { walkStream, type StreamPage, type UnchangedTest } from "./stream.js";
import { createTokenCache, type TokenCredentials } from "./token-cache.js";
import { createHttpTransport, type HttpTransport } from "./transport.js";
import { createRequestGate } from "./request-gate.js";
import { IN_FLIGHT_WRITE_GRACE_MS } from "./deadline.js";
import { guardWalk } from "./walk-guard.js";
import type { z } from "zod";

/** Optional members accept `undefined` (= the default), so config code can pass them straight through. */
export interface PlatformClientOptions extends TokenCredentials {
  /** The spec's `{base_url}`; `/v1/...` is appended. */
  baseUrl: string;
  /** `limit` of list requests, 1..500 (list rule: outside the range is a 400, never clamped). */
  pageLimit?: number | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** A 429 asking to wait longer than this fails instead of stalling (default 120 s). */
  maxRetryAfterMs?: number | undefined;
  /** Wait after an empty page that carries a cursor (list rule 4), default 200 ms. */
  emptyPageDelayMs?: number | undefined;
  /** Consecutive empty pages with a cursor before a walk ends, default 10. */
  maxEmptyPages?: number | undefined;
  /** Pages per walk at most, default 1,000,000. */
  maxPages?: number | undefined;
  logger?: Logger | undefined;
  clock?: Clock | undefined;
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  /** The process stops: reads in flight are abandoned, a write gets `writeGraceMs`, nothing starts after. */
  stop?: AbortSignal | undefined;
  /** Default IN_FLIGHT_WRITE_GRACE_MS (3 s). */
  writeGraceMs?: number | undefined;
  /** Credentials to scrub from errors; every access token issued is added to it. */
  secrets?: SecretRegistry | undefined;
  /** Epoch ms before which the platform asked not to be called, remembered from an earlier run. */
  notBefore?: number | undefined;
  /** Told each time a Retry-After moves that instant, so the caller can keep it (in the state). */
  onNotBefore?: ((at: number) => void) | undefined;
  /** Connections to use; the caller keeps ownership (close() leaves them open). */
  http?: HttpTransport | undefined;
}

export interface PlatformStats {
  /** HTTP requests sent to the token endpoint (retries included). */
  tokenRequests: number;
  /** HTTP requests sent to the API, every attempt counted. */
  requests: number;
  /** Attempts repeated after a 429, a 5xx, a dropped connection or a 401. */
  retries: number;
  /** The API requests by method and status (`error` when no answer came). */
  byOutcome: RequestCount[];
  /** Epoch ms before which the platform asked not to be called, while that is still ahead. */
  notBefore?: number;
}

export interface PlatformClient {
  /** `unchanged` names the items the caller already holds in that version: they are not parsed. */
  streamThreats(cursor: string | null, unchanged?: UnchangedTest): AsyncIterable<StreamPage<Threat>>;
  streamAssets(cursor: string | null): AsyncIterable<StreamPage<Asset>>;
  relatedAssets(assetId: string): AsyncIterable<StreamPage<Asset>>;
  /** null on 404 `resource/not-found` (also a threat of a removed asset). */
  getThreat(id: string): Promise<Threat | null>;
  getAsset(id: string): Promise<Asset | null>;
  /** PATCH the verdict; answers the threat with the platform's recalculated `status`. */
  setStatus(id: string, status: SettableStatus, statusNote?: string): Promise<Threat>;
  updateNote(id: string, note: string): Promise<void>;
  putExternalReference(id: string, system: string, ref: { external_id: string; url: string }): Promise<void>;
  stats(): PlatformStats;
  close(): Promise<void>;
}

export function createPlatformClient(opts: PlatformClientOptions): PlatformClient {
  const pageLimit = integerOption("pageLimit", opts.pageLimit ?? 500, 1, 500);
  const timeoutMs = integerOption("timeoutMs", opts.timeoutMs ?? 30_000, 1, 3_600_000);
  const maxRetries = integerOption("maxRetries", opts.maxRetries ?? 5, 0, 100);
  const maxRetryAfterMs = integerOption("maxRetryAfterMs", opts.maxRetryAfterMs ?? 120_000, 0, 86_400_000);
  const emptyPageDelayMs = integerOption("emptyPageDelayMs", opts.emptyPageDelayMs ?? 200, 0, 600_000);
  const maxEmptyPages = integerOption("maxEmptyPages", opts.maxEmptyPages ?? 10, 1, 10_000);
  const maxPages = integerOption("maxPages", opts.maxPages ?? 1_000_000, 1, Number.MAX_SAFE_INTEGER);
  const clock = opts.clock ?? systemClock;
  const sleep = opts.sleep ?? realSleep;
  const random = opts.random ?? Math.random;
  const logger = (opts.logger ?? silentLogger).child({ component: "platform" });
  // A transport passed in stays the caller's to close; the one made here is closed by close().
  const ownsTransport = opts.http === undefined;
  const secrets = opts.secrets ?? createSecretRegistry();
  const gate = createRequestGate({ initial: opts.notBefore, onChange: opts.onNotBefore });
  const stop = opts.stop;
  const http = opts.http ?? createHttpTransport(timeoutMs);

  const tokens = createTokenCache({
    tokenUrl: opts.tokenUrl,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    tokenAuth: opts.tokenAuth,
    scope: opts.scope,
    audience: opts.audience,
    http,
    clock,
    sleep,
    random,
    maxRetries,
    maxRetryAfterMs,
    timeoutMs,
    stop,
    gate,
    secrets,
    logger,
  });
  const api = createApiTransport({
    baseUrl: opts.baseUrl,
    http,
    tokens,
    clock,
    sleep,
    random,
    maxRetries,
    maxRetryAfterMs,
    timeoutMs,
    stop,
    writeGraceMs: opts.writeGraceMs ?? IN_FLIGHT_WRITE_GRACE_MS,
    gate,
    scrub: (text) => secrets.scrub(text),
    logger,
  });

  function walk<S extends z.ZodType>(
    path: string,
    start: string | null,
    item: S,
    arrayProperty?: string,
    unchanged?: UnchangedTest,
  ) {
    return guardWalk(
      () =>
        walkStream({
          start,
          item,
          ...(arrayProperty === undefined ? {} : { arrayProperty }),
          unchanged,
          fetchPage: async (cursor) => {
            const query: Record<string, string> = { limit: String(pageLimit) };
            if (cursor !== null) query["cursor"] = cursor;
            const res = await api.send({ method: "GET", path, query, replaySafe: true });
            return { body: res.body, info: res.info, status: res.status, requestId: res.requestId };
          },
          sleep,
          emptyPageDelayMs,
          maxEmptyPages,
          maxPages,
          logger,
        }),
      { path, gate, clock, maxRetryAfterMs, stop, logger },
    );
  }

  async function getOne<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S> | null> {
    let res: ApiResponse;
    try {
      res = await api.send({ method: "GET", path, replaySafe: true });
    } catch (err) {
      if (err instanceof PlatformProblem && err.status === 404 && err.type === "resource/not-found")
        return null;
      throw err;
    }
    return parseObject(res, schema);
  }

  return {
    streamThreats: (cursor, unchanged) => walk("/v1/threats", cursor, Threat, undefined, unchanged),
    streamAssets: (cursor) => walk("/v1/assets", cursor, Asset, "assets"),
    relatedAssets: (assetId) =>
      walk(`/v1/assets/${encodeURIComponent(assetId)}/related`, null, Asset, "assets"),
    getThreat: (id) => getOne(`/v1/threats/${encodeURIComponent(id)}`, Threat),
    getAsset: (id) => getOne(`/v1/assets/${encodeURIComponent(id)}`, Asset),
    async setStatus(id, status, statusNote) {
      const body = statusNote === undefined ? { status } : { status, status_note: statusNote };
      // Replay-safe: it sets a value ("Retry safety of writes").
      const res = await api.send({
        method: "PATCH",
        path: `/v1/threats/${encodeURIComponent(id)}`,
        body,
        replaySafe: true,
      });
      return parseObject(res, Threat);
    },
    async updateNote(id, note) {
      // Replay is safe: the note is replaced, not appended (update-note rule 6).
      await api.send({
        method: "POST",
        path: `/v1/threats/${encodeURIComponent(id)}/update-note`,
        body: { note },
        replaySafe: true,
        readBody: false,
      });
    },
    async putExternalReference(id, system, ref) {
      // Replay is safe: an upsert keyed on `system` (external-references rule 3).
      await api.send({
        method: "PUT",
        path: `/v1/threats/${encodeURIComponent(id)}/external-references/${encodeURIComponent(system)}`,
        body: { external_id: ref.external_id, url: ref.url },
        replaySafe: true,
        readBody: false,
      });
    },
    stats: () => ({
      tokenRequests: tokens.requestCount(),
      requests: api.counters.requests,
      retries: api.counters.retries,
      byOutcome: api.counters.byOutcome.counts(),
      ...(gate.openAt() > clock.now() ? { notBefore: gate.openAt() } : {}),
    }),
    async close() {
      if (ownsTransport) await http.close();
    },
  };
}

/** Options are the program's own input, checked once here so a typo fails fast and says which. */
function integerOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new PlatformError(
      "platform_invalid_options",
      `${name} must be an integer from ${min} to ${max}, got ${value}`,
      undefined,
    );
  }
  return value;
}

function parseObject<S extends z.ZodType>(res: ApiResponse, schema: S): z.output<S> {
  const parsed = schema.safeParse(res.body);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
    .join("; ");
  throw new PlatformResponseError({ ...res.info, status: res.status, requestId: res.requestId }, reason, {
    cause: parsed.error,
  });
}
