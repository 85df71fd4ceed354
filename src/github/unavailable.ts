import { GitHubError } from "./errors.js";

/** A GitHub feature the repository does not offer: a result, not an error, since the caller falls back. */
export interface Unavailable {
  available: false;
  status: number;
  /** GitHub's message, for the one log line that says so. */
  message: string;
}

/** GitHub's 422 texts that mean the feature is off, rather than that this one request is wrong. */
export const FEATURE_OFF = /not (?:enabled|available|supported)|disabled|feature/i;

/** A 422's message with the messages of its `errors` entries, where GitHub states the rule broken. */
export function validationText(error: GitHubError): string {
  const entries = error.request?.errors ?? [];
  return [error.request?.message ?? error.message, ...entries.map((e) => e.message ?? "")].join(" ");
}

/** Whether a failure means the repository lacks the feature (404, 410, a non-limit 403, a 422 saying so). */
function asUnavailable(error: unknown): Unavailable | null {
  if (!(error instanceof GitHubError) || error.code === "rate_limited" || error.status === null) return null;
  const message = validationText(error);
  const off =
    error.status === 404 ||
    error.status === 410 ||
    error.status === 403 ||
    (error.status === 422 && FEATURE_OFF.test(message));
  return off ? { available: false, status: error.status, message } : null;
}

/** Runs a call whose "not available" answer is a result; other failures are thrown unchanged. */
export async function unlessUnavailable<T>(call: () => Promise<T>): Promise<T | Unavailable> {
  try {
    return await call();
  } catch (error) {
    const off = asUnavailable(error);
    if (off === null) throw error;
    return off;
  }
}
