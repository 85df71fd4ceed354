import type { z } from "zod";
import type { Logger } from "../observability/index.js";
import type { Sleep } from "../shared/clock.js";
import { isRecord } from "../shared/json.js";
import { PlatformResponseError, type RequestInfo } from "./errors.js";
import { Pagination } from "./schemas.js";

/** Cursor walks over the list endpoints (spec "Common list behaviour"). */

export type ParsedItem<T> =
  { ok: true; value: T } | { ok: false; id: string | null; raw: unknown; error: string };

/** Says from an item's raw JSON that the caller holds exactly this version (spec "Events"): not parsed. */
export type UnchangedTest = (raw: Readonly<Record<string, unknown>>) => string | null;

export interface StreamPage<T> {
  items: ParsedItem<T>[];
  /** Ids of the items the caller's `unchanged` test recognized: not parsed, and not in `items`. */
  unchanged?: string[];
  /** The page's `next_cursor`; null ends the stream. */
  nextCursor: string | null;
  /** The last non-null cursor seen so far, the start cursor included (list rule 6): save this one. */
  resumeCursor: string | null;
}

export interface FetchedPage {
  body: unknown;
  info: RequestInfo;
  status: number;
  requestId: string | undefined;
}

export interface WalkOptions<S extends z.ZodType> {
  start: string | null;
  fetchPage(cursor: string | null): Promise<FetchedPage>;
  item: S;
  /** Preferred array property (e.g. `assets`); without it, or when absent, the one array property is taken. */
  arrayProperty?: string;
  sleep: Sleep;
  /** Wait before asking again after an empty page that still carries a cursor. */
  emptyPageDelayMs: number;
  /** Consecutive empty pages with a cursor tolerated before the walk ends (caller resumes later). */
  maxEmptyPages: number;
  /** Upper bound of pages in one walk, against a server that never says null. */
  maxPages: number;
  logger: Logger;
  unchanged?: UnchangedTest | undefined;
}

/** The array of a list page: the ONE array-valued property besides `pagination` where the spec names none. */
function pageArray(body: Record<string, unknown>, preferred: string | undefined): unknown[] | string {
  if (preferred !== undefined) {
    const v = body[preferred];
    if (Array.isArray(v)) return v;
  }
  const found: string[] = [];
  let array: unknown[] | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (key !== "pagination" && Array.isArray(value)) {
      found.push(key);
      array = value;
    }
  }
  if (found.length === 1 && array !== undefined) return array;
  return found.length === 0
    ? "no array property besides pagination"
    : `${found.length} array properties (${found.join(", ")}), expected exactly one`;
}

/** Parse one item; a bad item is reported, never thrown, so one broken row cannot stall a stream. */
function parseItem<S extends z.ZodType>(schema: S, raw: unknown): ParsedItem<z.output<S>> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const id = isRecord(raw) && typeof raw["id"] === "string" ? raw["id"] : null;
  const error = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length === 0 ? "(item)" : i.path.join(".")}: ${i.message}`)
    .join("; ");
  return { ok: false, id, raw, error };
}

/** Checks the envelope of one page and parses its items. A malformed envelope throws. */
function readPage<S extends z.ZodType>(
  page: FetchedPage,
  schema: S,
  preferred: string | undefined,
  unchanged?: UnchangedTest,
): { items: ParsedItem<z.output<S>>[]; unchanged: string[]; nextCursor: string | null } {
  const where = { ...page.info, status: page.status, requestId: page.requestId };
  if (!isRecord(page.body)) throw new PlatformResponseError(where, "the list page is not a JSON object");
  const pagination = Pagination.safeParse(page.body["pagination"]);
  if (!pagination.success) {
    throw new PlatformResponseError(where, "the list page has no valid pagination.next_cursor", {
      cause: pagination.error,
    });
  }
  const array = pageArray(page.body, preferred);
  if (typeof array === "string") throw new PlatformResponseError(where, array);
  const items: ParsedItem<z.output<S>>[] = [];
  const known: string[] = [];
  for (const raw of array) {
    const id = unchanged !== undefined && isRecord(raw) ? unchanged(raw) : null;
    if (id === null) items.push(parseItem(schema, raw));
    else known.push(id);
  }
  return { items, unchanged: known, nextCursor: pagination.data.next_cursor };
}

/** One page fetched and read; its body is not kept past this (only its items are handed on). */
async function fetchAndRead<S extends z.ZodType>(
  opts: WalkOptions<S>,
  cursor: string | null,
): Promise<{
  info: RequestInfo;
  items: ParsedItem<z.output<S>>[];
  unchanged: string[];
  nextCursor: string | null;
}> {
  const page = await opts.fetchPage(cursor);
  return { info: page.info, ...readPage(page, opts.item, opts.arrayProperty, opts.unchanged) };
}

/** Walks from `start` to `next_cursor: null`, a page at a time; an empty page (rule 4) is asked again. */
export async function* walkStream<S extends z.ZodType>(
  opts: WalkOptions<S>,
): AsyncGenerator<StreamPage<z.output<S>>> {
  let cursor = opts.start;
  let resumeCursor = opts.start;
  let emptyInARow = 0;
  for (let pages = 0; pages < opts.maxPages; pages++) {
    const { info, items, unchanged, nextCursor } = await fetchAndRead(opts, cursor);
    if (nextCursor !== null) resumeCursor = nextCursor;
    yield { items, unchanged, nextCursor, resumeCursor };
    if (nextCursor === null) return;
    if (items.length === 0 && unchanged.length === 0) {
      emptyInARow++;
      if (emptyInARow >= opts.maxEmptyPages) {
        opts.logger.debug(
          { ...info, empty_pages: emptyInARow },
          "stream withholds recent changes; resuming next cycle",
        );
        return;
      }
      await opts.sleep(opts.emptyPageDelayMs);
    } else {
      emptyInARow = 0;
    }
    cursor = nextCursor;
  }
  opts.logger.warn(
    { max_pages: opts.maxPages },
    "stream walk stopped at its page bound; resuming next cycle",
  );
}
