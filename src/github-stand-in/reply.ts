/**
 * A handler's answer; the server adds the common headers, ETag and rate-limit headers. A file of
 * its own, importing nothing, so that the repository settings can answer without importing the
 * router (which imports the store, whose types import the settings).
 */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
