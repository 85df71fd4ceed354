/** A handler's answer; the server adds the common headers. Imports nothing, so settings need not import the router. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
