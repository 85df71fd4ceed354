import { z } from "zod";

/** What one failed attempt means for the next: a rate limit, a transient failure, or the end. Pure. */
type AttemptVerdict =
  | { kind: "limit"; limit: "secondary" | "primary"; retryAfterSeconds: number }
  | { kind: "transient" }
  | { kind: "final" };

/** An Octokit RequestError, read without trusting it: whatever a hook threw may reach here. */
const RequestErrorShape = z.object({
  status: z.number(),
  message: z.string(),
  // Octokit's RequestError always carries the request; anything else is not an HTTP failure.
  request: z.object({}).loose(),
  response: z.object({ headers: z.record(z.string(), z.unknown()).optional() }).optional(),
});

/** Answers the same request would get again; 403 and 429 are decided by the limit rules below. */
const NOT_TRANSIENT: ReadonlySet<number> = new Set([400, 401, 403, 404, 410, 422, 429, 451]);

/** GitHub's "secondary rate limit" text (REST docs, "Rate limits for the REST API"). */
const SECONDARY = /\bsecondary rate\b/i;
/** Without a retry-after, GitHub asks to wait "at least one minute" after a secondary limit. */
const SECONDARY_FALLBACK_SECONDS = 60;

function header(headers: Record<string, unknown> | undefined, name: string): string | null {
  const value = headers?.[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}

/**
 * Classifies a failed attempt: a secondary limit waits its retry-after; the primary limit waits
 * until a second after its reset; other answers ≥ 400 outside NOT_TRANSIENT and network failures are transient.
 */
export function classifyFailure(error: unknown, nowMs: number): AttemptVerdict {
  const parsed = RequestErrorShape.safeParse(error);
  if (!parsed.success) return { kind: "final" };
  const { status, message, response } = parsed.data;
  const headers = response?.headers;
  if (status === 403 || status === 429) {
    if (SECONDARY.test(message)) {
      const retryAfter = Number(header(headers, "retry-after"));
      return {
        kind: "limit",
        limit: "secondary",
        retryAfterSeconds:
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : SECONDARY_FALLBACK_SECONDS,
      };
    }
    if (header(headers, "x-ratelimit-remaining") === "0") {
      const resetMs = Number(header(headers, "x-ratelimit-reset")) * 1000;
      const seconds = Number.isFinite(resetMs)
        ? Math.ceil((resetMs - nowMs) / 1000) + 1
        : SECONDARY_FALLBACK_SECONDS;
      return { kind: "limit", limit: "primary", retryAfterSeconds: Math.max(seconds, 0) };
    }
  }
  return status >= 400 && !NOT_TRANSIENT.has(status) ? { kind: "transient" } : { kind: "final" };
}
