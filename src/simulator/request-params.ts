import type { IncomingHttpHeaders } from "node:http";
import { z } from "zod";
import type { Reply } from "./http-io.js";
import { ProblemError } from "./problems.js";

/** What a handler sees of a request. */
export interface RequestContext {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Decoded path parameters, in the order of the route pattern. */
  params: readonly string[];
  headers: IncomingHttpHeaders;
  body(): Promise<string>;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every path id is a UUID (spec, What the service does 4): otherwise 400 `request/invalid-filter`. */
export function requireUuid(value: string | undefined, name: string): string {
  if (value === undefined || !UUID.test(value)) {
    throw new ProblemError(
      "request/invalid-filter",
      `path parameter ${name} must be a UUID, got ${JSON.stringify(value ?? "")}`,
    );
  }
  return value.toLowerCase();
}

/** `limit`: 1 to 500, default 100; outside the range 400, never clamped (spec, Common list behaviour). */
export function parseLimit(query: URLSearchParams): number {
  const values = query.getAll("limit");
  if (values.length === 0) return 100;
  const [value] = values;
  if (values.length > 1 || value === undefined || !/^[0-9]{1,6}$/.test(value)) {
    throw new ProblemError(
      "request/invalid-limit",
      `limit must be one integer from 1 to 500, got ${JSON.stringify(values.join(","))}`,
    );
  }
  const limit = Number(value);
  if (limit < 1 || limit > 500) {
    throw new ProblemError("request/invalid-limit", `limit must be from 1 to 500, got ${limit}`);
  }
  return limit;
}

/** The raw `cursor`, or null on a first poll. An empty or repeated cursor is not one we issued. */
export function cursorParam(query: URLSearchParams): string | null {
  const values = query.getAll("cursor");
  if (values.length === 0) return null;
  const [value] = values;
  if (values.length > 1 || value === undefined || value === "") {
    throw new ProblemError("request/invalid-cursor", "give at most one non-empty cursor");
  }
  return value;
}

/** Parses a JSON body with a zod schema; any mismatch is 422 `request/validation`. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ProblemError("request/validation", `${what}: ${z.prettifyError(result.error)}`, {
      cause: result.error,
    });
  }
  return result.data;
}

export function page(
  arrayName: "assets" | "threats",
  items: readonly unknown[],
  nextCursor: string | null,
): Reply {
  return {
    status: 200,
    json: { [arrayName]: items, pagination: { next_cursor: nextCursor, page_size: items.length } },
  };
}
