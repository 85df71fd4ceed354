import { z } from "zod";
import type { Clock } from "../shared/clock.js";
import { GitHubError, toGitHubError } from "./errors.js";
import type { GitHubOctokit } from "./octokit-factory.js";

/** One REST exchange, with errors reduced to GitHubError (method, URL, status, message). */
export interface RestContext {
  octokit: GitHubOctokit;
  baseUrl: string;
  clock: Clock;
}

type PageLinks = Partial<Record<"next" | "prev" | "first" | "last", string>>;

export interface PageResult {
  notModified: boolean;
  data: unknown;
  etag: string | null;
  links: PageLinks;
}

export type Query = Record<string, string | number>;

const ResponseShape = z.object({
  status: z.number(),
  headers: z.record(z.string(), z.unknown()),
  data: z.unknown(),
});
const NotModifiedShape = z.object({ status: z.literal(304) });

/** A page's body parsed with JSON.parse (GitHub's ids fit in a double); a body not JSON is its text. */
async function bodyJson(data: unknown): Promise<unknown> {
  if (!(data instanceof ReadableStream)) return data;
  const text = await new Response(data).text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `<url>; rel="next", <url>; rel="last"` → { next, last } (RFC 8288, as GitHub sends it). */
function parseLinks(header: unknown): PageLinks {
  const links: PageLinks = {};
  if (typeof header !== "string") return links;
  for (const part of header.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    const rel = match?.[2];
    const url = match?.[1];
    if (url === undefined) continue;
    if (rel === "next" || rel === "prev" || rel === "first" || rel === "last") links[rel] = url;
  }
  return links;
}

function absolute(ctx: RestContext, url: string, query: Query = {}): string {
  const full = /^https?:\/\//.test(url) ? url : `${ctx.baseUrl}${url}`;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) params.append(key, String(value));
  const search = params.toString();
  return search === "" ? full : `${full}${full.includes("?") ? "&" : "?"}${search}`;
}

/** GET one page; with `etag`, a conditional request whose 304 is `notModified`. */
export async function getPage(
  ctx: RestContext,
  url: string,
  query: Query = {},
  etag: string | null = null,
): Promise<PageResult> {
  const headers: Record<string, string> = etag === null ? {} : { "if-none-match": etag };
  try {
    const response = ResponseShape.parse(
      await ctx.octokit.request({
        method: "GET",
        url,
        ...query,
        headers,
        request: { parseSuccessResponseBody: false },
      }),
    );
    const responseEtag = response.headers["etag"];
    return {
      notModified: false,
      data: await bodyJson(response.data),
      etag: typeof responseEtag === "string" ? responseEtag : null,
      links: parseLinks(response.headers["link"]),
    };
  } catch (error) {
    if (NotModifiedShape.safeParse(error).success) return { notModified: true, data: null, etag, links: {} };
    throw toGitHubError(error, {
      method: "GET",
      url: absolute(ctx, url, query),
      createRequest: false,
      now: ctx.clock.now(),
    });
  }
}

/** GET that answers null on 404/410 (a deleted or inaccessible resource). */
export async function getOrNull(ctx: RestContext, url: string, query: Query = {}): Promise<unknown> {
  try {
    return (await getPage(ctx, url, query)).data;
  } catch (error) {
    if (error instanceof GitHubError && error.code === "not_found") return null;
    throw error;
  }
}

/** A write; `create` marks a POST that makes something new: sent once, an unknown outcome is `outcome_unknown`. */
export async function sendWrite(
  ctx: RestContext,
  method: "POST" | "PATCH" | "DELETE",
  url: string,
  body: Record<string, unknown>,
  create: boolean,
): Promise<unknown> {
  try {
    const response = await ctx.octokit.request({
      method,
      url,
      ...body,
      ...(create ? { request: { retries: 0 } } : {}),
    });
    return ResponseShape.parse(response).data;
  } catch (error) {
    throw toGitHubError(error, {
      method,
      url: absolute(ctx, url),
      createRequest: create,
      now: ctx.clock.now(),
    });
  }
}
