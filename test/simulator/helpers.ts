import { afterEach } from "vitest";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator/index.js";

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  body: unknown;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

export interface Page {
  items: Array<Record<string, unknown>>;
  next: string | null;
  pageSize: number;
}

export interface Api {
  sim: RunningSimulator;
  token(clientId?: string, secret?: string): Promise<string>;
  call(
    method: string,
    path: string,
    options?: { token?: string | null; body?: unknown; raw?: string },
  ): Promise<HttpAnswer>;
  page(path: string, token?: string): Promise<Page>;
  /** Follows a stream from `cursor` until `next_cursor: null` (bounded), answering the items and the last non-null cursor. */
  walk(
    endpoint: string,
    options?: { cursor?: string | null; limit?: number; token?: string },
  ): Promise<{
    items: Array<Record<string, unknown>>;
    lastCursor: string | null;
    pages: number;
  }>;
  problem(answer: HttpAnswer, suffix: string, status: number): Problem;
}

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error(`not an object: ${String(value)}`);
  return Object.fromEntries(Object.entries(value));
}

export function records(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) throw new Error("not an array");
  return value.map(record);
}

export function asRecord(value: unknown): Record<string, unknown> {
  return record(value);
}

export async function openApi(options: SimulatorOptions = {}): Promise<Api> {
  const sim = await startSimulator(options);
  let cached: string | undefined;
  const api: Api = {
    sim,
    async token(clientId = "threatbridge", secret = "threatbridge-secret") {
      const answer = await fetch(`${sim.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: clientId,
          client_secret: secret,
        }),
      });
      const body = record(await answer.json());
      if (typeof body["access_token"] !== "string") throw new Error("no token");
      return body["access_token"];
    },
    async call(method, path, options = {}) {
      let token = options.token;
      if (token === undefined) token = cached ??= await api.token();
      const headers: Record<string, string> = {};
      if (token !== null) headers["authorization"] = `Bearer ${token}`;
      let payload: string | undefined = options.raw;
      if (options.body !== undefined) payload = JSON.stringify(options.body);
      if (payload !== undefined) headers["content-type"] = "application/json";
      const answer = await fetch(`${sim.url}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      const text = await answer.text();
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: answer.status, headers: answer.headers, text, body };
    },
    async page(path, token) {
      const answer = await api.call("GET", path, token === undefined ? {} : { token });
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
      const body = record(answer.body);
      const pagination = record(body["pagination"]);
      const arrays = Object.entries(body).filter(
        ([key, value]) => key !== "pagination" && Array.isArray(value),
      );
      const [entry] = arrays;
      if (arrays.length !== 1 || entry === undefined) throw new Error("expected exactly one array property");
      const next = pagination["next_cursor"];
      if (next !== null && typeof next !== "string") throw new Error("bad next_cursor");
      const pageSize = pagination["page_size"];
      if (typeof pageSize !== "number") throw new Error("bad page_size");
      return { items: records(entry[1]), next, pageSize };
    },
    async walk(endpoint, options = {}) {
      const items: Array<Record<string, unknown>> = [];
      let cursor = options.cursor ?? null;
      let lastCursor = cursor;
      const limit = options.limit ?? 500;
      for (let pages = 1; pages <= 5_000; pages += 1) {
        const query = `limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = await api.page(`${endpoint}?${query}`, options.token);
        items.push(...page.items);
        if (page.next === null) return { items, lastCursor, pages };
        cursor = page.next;
        lastCursor = page.next;
      }
      throw new Error(`stream ${endpoint} did not end`);
    },
    problem(answer, suffix, status) {
      if (answer.status !== status)
        throw new Error(`expected ${status}, got ${answer.status}: ${answer.text}`);
      if (!(answer.headers.get("content-type") ?? "").startsWith("application/problem+json")) {
        throw new Error(`not problem+json: ${answer.headers.get("content-type")}`);
      }
      const body = record(answer.body);
      const problem: Problem = {
        type: String(body["type"]),
        title: String(body["title"]),
        status: Number(body["status"]),
        detail: String(body["detail"]),
        instance: String(body["instance"]),
      };
      if (problem.type !== `${sim.url}/errors/${suffix}`)
        throw new Error(`expected ${suffix}, got ${problem.type}`);
      return problem;
    },
  };
  return api;
}

/** Opens a fresh simulator per test (closed after it). */
export function simulatorPerTest(): (options?: SimulatorOptions) => Promise<Api> {
  const open: Api[] = [];
  afterEach(async () => {
    for (const api of open.splice(0)) await api.sim.close();
  });
  return async (options = {}) => {
    const api = await openApi(options);
    open.push(api);
    return api;
  };
}

/** A clock the test moves by hand. */
export function manualClock(startMs = Date.parse("2026-01-15T12:00:00.000Z")): {
  now(): number;
  advance(ms: number): void;
} {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms) => (nowMs += ms) };
}
