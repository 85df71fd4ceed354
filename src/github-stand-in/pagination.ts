import { createHash } from "node:crypto";
import type { Reply } from "./router.js";

export interface PageResult<T> {
  items: T[];
  /** The `Link` header, or undefined when everything fits on one page. */
  link: string | undefined;
}

/** GitHub's default page size for list endpoints. */
const DEFAULT_PER_PAGE = 30;

function positiveInt(raw: string | null, fallback: number): number {
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const n = Number(raw);
  return n >= 1 ? n : fallback;
}

/** Page-number pagination with a `Link` header of absolute URLs; `per_page` above the maximum is clamped. */
export function paginate<T>(all: readonly T[], url: URL, perPageMax: number): PageResult<T> {
  const perPage = Math.min(positiveInt(url.searchParams.get("per_page"), DEFAULT_PER_PAGE), perPageMax);
  const page = positiveInt(url.searchParams.get("page"), 1);
  const items = all.slice((page - 1) * perPage, page * perPage);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  const rels: string[] = [];
  const at = (p: number, rel: string): void => {
    const u = new URL(url.href);
    u.searchParams.set("page", String(p));
    rels.push(`<${u.href}>; rel="${rel}"`);
  };
  if (page > 1) at(Math.min(page - 1, last), "prev");
  if (page < last) {
    at(page + 1, "next");
    at(last, "last");
  }
  if (page > 1) at(1, "first");
  return { items, link: rels.length > 0 ? rels.join(", ") : undefined };
}

/** A 200 answer with one page of `all` and its `Link` header. */
export function pagedReply(all: readonly unknown[], url: URL, perPageMax: number): Reply {
  const page = paginate(all, url, perPageMax);
  return {
    status: 200,
    body: page.items,
    ...(page.link === undefined ? {} : { headers: { link: page.link } }),
  };
}

/** A weak validator over the response body: equal bodies give equal ETags. */
export function etagOf(body: string): string {
  return `W/"${createHash("sha256").update(body).digest("hex").slice(0, 40)}"`;
}

/** `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, "");
  const want = strip(etag);
  return header.split(",").some((candidate) => candidate.trim() === "*" || strip(candidate) === want);
}
