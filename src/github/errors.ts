import { z } from "zod";

/** Stable codes of the GitHub side; `outcome_unknown` is resolved by looking for the marker, never by resending. */
type GitHubErrorCode =
  | "outcome_unknown"
  | "rate_limited"
  | "not_found"
  | "unauthorized"
  | "validation"
  | "http"
  | "response_invalid"
  | "budget_deadline"
  /** Not sent, or not waited for: the process is stopping (github/stop.ts); the work stays queued. */
  | "stopped"
  | "internal";

/** What is kept of a failed request: method, URL, status and GitHub's message, nothing else. */
interface StrippedRequestError {
  method: string;
  url: string;
  status: number | null;
  message: string;
  documentationUrl: string | null;
  /** A 422's `errors` entries (which field, which rule): GitHub's words, never request data. */
  errors?: ValidationDetail[];
}

interface ValidationDetail {
  resource?: string;
  field?: string;
  code?: string;
  message?: string;
}

interface GitHubErrorDetails {
  status?: number | null;
  retryAfterMs?: number | null;
  request?: StrippedRequestError;
  cause?: unknown;
}

export class GitHubError extends Error {
  override readonly name = "GitHubError";
  readonly code: GitHubErrorCode;
  readonly status: number | null;
  /** For `rate_limited`: how long to wait before writing again. */
  readonly retryAfterMs: number | null;
  readonly request: StrippedRequestError | null;

  constructor(code: GitHubErrorCode, message: string, details: GitHubErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.request = details.request ?? null;
  }
}

/** The shape of an Octokit RequestError, read without trusting it (it may be anything thrown). */
const RequestErrorShape = z.object({
  status: z.number().optional(),
  message: z.string().optional(),
  response: z
    .object({
      headers: z.record(z.string(), z.unknown()).optional(),
      data: z.unknown().optional(),
    })
    .optional(),
});

const ValidationEntry = z.looseObject({
  resource: z.string().optional(),
  field: z.string().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
});

const ProblemData = z.object({
  message: z.string().optional(),
  documentation_url: z.string().optional(),
  errors: z.array(z.union([ValidationEntry, z.string().transform((message) => ({ message }))])).optional(),
});

const SECRET_QUERY_KEYS = new Set(["access_token", "token", "client_secret", "client_id", "code", "jwt"]);

/** Drops user info and secret-looking query values from a URL before it reaches a log or message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    for (const key of [...parsed.searchParams.keys()]) {
      if (SECRET_QUERY_KEYS.has(key.toLowerCase())) parsed.searchParams.set(key, "[redacted]");
    }
    return parsed.toString();
  } catch {
    return url.replace(/[?#].*$/, "");
  }
}

interface ClassifyContext {
  method: string;
  url: string;
  /** A create (POST) whose failure leaves GitHub's state unknown: 5xx, network, timeout. */
  createRequest: boolean;
  now: number;
}

function headerString(headers: Record<string, unknown> | undefined, name: string): string | null {
  const value = headers?.[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}

/** Retry-after in ms from `retry-after` (seconds) or `x-ratelimit-reset` (epoch seconds). */
function retryAfterMsOf(headers: Record<string, unknown> | undefined, now: number): number | null {
  const retryAfter = Number(headerString(headers, "retry-after"));
  if (headerString(headers, "retry-after") !== null && Number.isFinite(retryAfter)) {
    return Math.max(0, retryAfter * 1000);
  }
  const reset = Number(headerString(headers, "x-ratelimit-reset"));
  if (headerString(headers, "x-ratelimit-reset") !== null && Number.isFinite(reset)) {
    return Math.max(0, reset * 1000 - now);
  }
  return null;
}

/** Whether a 403/429 is rate limiting (REST docs, "Rate limits") rather than a permission problem. */
function isRateLimitAnswer(
  status: number,
  headers: Record<string, unknown> | undefined,
  message: string,
): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return (
    headerString(headers, "x-ratelimit-remaining") === "0" ||
    headerString(headers, "retry-after") !== null ||
    /rate limit/i.test(message)
  );
}

/** Turns whatever a request threw into a GitHubError that carries no secret. */
export function toGitHubError(error: unknown, ctx: ClassifyContext): GitHubError {
  if (error instanceof GitHubError) return error;
  const shape = RequestErrorShape.safeParse(error);
  const answered = shape.success && shape.data.response !== undefined;
  // Octokit reports a network failure or timeout as status 500 without a response: no answer.
  const status = answered ? (shape.data?.status ?? null) : null;
  const headers = shape.success ? shape.data.response?.headers : undefined;
  const problem = ProblemData.safeParse(shape.success ? shape.data.response?.data : undefined);
  const rawMessage =
    (problem.success ? problem.data.message : undefined) ??
    (shape.success ? shape.data.message : undefined) ??
    (error instanceof Error ? error.message : "unknown error");
  const request: StrippedRequestError = {
    method: ctx.method,
    url: redactUrl(ctx.url),
    status,
    message: rawMessage.split("\n")[0] ?? "",
    documentationUrl: problem.success ? (problem.data.documentation_url ?? null) : null,
  };
  const entries = problem.success ? problem.data.errors : undefined;
  if (status === 422 && entries !== undefined && entries.length > 0) {
    request.errors = entries.map((e) => ({
      ...("resource" in e && e.resource !== undefined ? { resource: e.resource } : {}),
      ...("field" in e && e.field !== undefined ? { field: e.field } : {}),
      ...("code" in e && e.code !== undefined ? { code: e.code } : {}),
      ...(e.message === undefined ? {} : { message: e.message }),
    }));
  }
  const where = `${request.method} ${request.url}`;
  const details = { status, request, cause: request };
  const text = `GitHub ${where} ${status === null ? "failed" : `answered ${status}`}: ${request.message}`;

  if (ctx.createRequest && (status === null || status >= 500)) {
    return new GitHubError(
      "outcome_unknown",
      `${text} — the write may or may not have happened; look for its marker before sending it again`,
      details,
    );
  }
  if (status !== null && isRateLimitAnswer(status, headers, request.message)) {
    const retryAfterMs = retryAfterMsOf(headers, ctx.now) ?? 60_000;
    return new GitHubError("rate_limited", `${text} (retry after ${Math.ceil(retryAfterMs / 1000)} s)`, {
      ...details,
      retryAfterMs,
    });
  }
  if (status === 401 || status === 403) {
    return new GitHubError("unauthorized", `${text} — check the token or the App's permissions`, details);
  }
  if (status === 404 || status === 410)
    return new GitHubError("not_found", `${text}${missingRepositoryHint(ctx.url, status)}`, details);
  if (status === 422) return new GitHubError("validation", text, details);
  return new GitHubError("http", text, details);
}

/** A repository's own routes (not one issue's): a 404 there means the repository is missing or hidden. */
const REPOSITORY_ROUTE =
  /\/repos\/([^/?#]+\/[^/?#]+)(?:\/(?:issues|labels|issues\/comments|issues\/events|installation))?\/?(?:[?#]|$)/;

/** What to fix on a repository's 404 (a typo, or credentials that may not see it) or 410 (issues disabled). */
function missingRepositoryHint(url: string, status: number): string {
  const repo = REPOSITORY_ROUTE.exec(url)?.[1];
  if (repo === undefined) return "";
  if (status === 410)
    return ` — issues are disabled in ${repo}: enable them in its settings, or route issues elsewhere`;
  return ` — repository ${repo} is missing or not visible: check github.repository (or the route's repository) for a typo, and that the token (or the App's installation) has access to ${repo}`;
}

/** Parses a GitHub answer at the edge; an unexpected shape is `response_invalid`. */
export function parseResponse<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) {
    const reason = result.error.issues[0]?.message ?? "";
    throw new GitHubError("response_invalid", `GitHub answered an unexpected ${what}: ${reason}`);
  }
  return result.data;
}

/** GitHub's 403 texts for a locked conversation and an archived (read-only) repository. */
const REFUSED_FOR_GOOD = /\blocked\b|\barchived\b/i;

/** A refusal GitHub will repeat: 403 locked or archived, 404, 410, 422; everything else is transient. */
export function isPermanentRefusal(error: unknown): error is GitHubError {
  if (!(error instanceof GitHubError) || error.code === "rate_limited") return false;
  if (error.status === 403) return REFUSED_FOR_GOOD.test(error.request?.message ?? error.message);
  return error.status === 404 || error.status === 410 || error.status === 422;
}

/** GitHub answered 404 or 410 for an issue: it was deleted (or is out of the connector's reach for good). */
export function isGone(error: unknown): error is GitHubError {
  return error instanceof GitHubError && (error.status === 404 || error.status === 410);
}
