import { pinoModule } from "./pino-module.js";

/**
 * The `err` of a log line (contract, "Logs": "an error is pino's `err` object with `type` and
 * `message`"). pino's standard serializer gives `type`, `message` and `stack` (causes' messages
 * and stacks included); it would also copy every enumerable property of the error, and an HTTP
 * error of a client library carries its request and response, headers included. So only what is
 * known to be safe is kept: the error's stable `code` and `status`, and the log form an error
 * class defines for itself (`toJSON`: the platform's errors stripped to method, path, status and
 * problem body; a GitHubError's stripped request). Credentials that a message or stack may still
 * quote are scrubbed by the logger's destination, as for every other field.
 */

/** A property of an error's log form that names a request's credentials or raw exchange. */
const UNSAFE_KEYS = new Set(["headers", "request", "response", "config", "options", "raw"]);

/** `retryAfterMs` → `retry_after_ms`: log keys are snake_case throughout (contract). */
function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Plain data only, keys in snake_case, nothing under a key that may hold an exchange's headers. */
function safeValue(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") return typeof value === "function" ? undefined : value;
  if (depth > 4) return undefined;
  if (Array.isArray(value)) return value.map((item: unknown) => safeValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (UNSAFE_KEYS.has(key.toLowerCase())) continue;
    const safe = safeValue(child, depth + 1);
    if (safe !== undefined) out[snakeCase(key)] = safe;
  }
  return out;
}

/** What the error class says of itself for logs, when it says anything. */
function logForm(error: Error): Record<string, unknown> {
  const toJSON: unknown = Reflect.get(error, "toJSON");
  if (typeof toJSON === "function") {
    const form: unknown = toJSON.call(error);
    if (form !== null && typeof form === "object") return { ...form };
  }
  const own: Record<string, unknown> = {};
  for (const key of ["code", "status", "retryAfterMs"]) {
    const value: unknown = Reflect.get(error, key);
    if (typeof value === "string" || typeof value === "number") own[key] = value;
  }
  // A GitHubError keeps its request already stripped to method, URL, status and GitHub's message.
  const request: unknown = Reflect.get(error, "request");
  if (error.name === "GitHubError" && request !== null && typeof request === "object")
    own["github_request"] = request;
  return own;
}

/**
 * pino's `err` serializer with the error's own fields limited to its log form. A string (some
 * failures are known only by their text) becomes `{ type: "Error", message }`, so `err` always
 * has the same shape.
 */
export function serializeError(value: unknown): unknown {
  if (typeof value === "string") return { type: "Error", message: value };
  if (!(value instanceof Error)) return value;
  const std = pinoModule().pino.stdSerializers.err(value);
  const extra = safeValue(logForm(value), 0);
  const out: Record<string, unknown> = typeof extra === "object" && extra !== null ? { ...extra } : {};
  // The class's `name` and a problem's `type` must not replace pino's own `type`.
  if ("type" in out) {
    out["problem_type"] = out["type"];
    delete out["type"];
  }
  delete out["name"];
  return { ...out, type: std.type, message: std.message, stack: std.stack };
}
