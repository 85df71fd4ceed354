import { Octokit } from "@octokit/rest";
import { afterEach } from "vitest";
import {
  startGitHubStandIn,
  type RunningStandIn,
  type StandInOptions,
} from "../../src/github-stand-in/index.js";

export const TOKEN = "ghp_standin";
export const REPO = { owner: "acme", repo: "security" };
export const FULL = "acme/security";

/** Octokit's own logger would print expected 4xx warnings; tests read the errors instead. */
const quietLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export function client(standIn: RunningStandIn, auth: string = TOKEN): Octokit {
  return new Octokit({ auth, baseUrl: standIn.url, log: quietLog });
}

/** Starts a stand-in that is closed after the current test, whatever happens. */
export function useStandIn(): (opts?: StandInOptions) => Promise<RunningStandIn> {
  const started: RunningStandIn[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return async (opts) => {
    const s = await startGitHubStandIn({ host: "127.0.0.1", port: 0, ...opts });
    started.push(s);
    return s;
  };
}

/** A settable clock: tests move time instead of waiting. */
export function manualClock(start = Date.parse("2026-01-05T10:00:00Z")): {
  now(): number;
  advance(ms: number): void;
} {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

/** The HTTP status of a rejected Octokit call (RequestError), or "resolved". */
export async function statusOf(p: Promise<unknown>): Promise<number | "resolved"> {
  try {
    await p;
    return "resolved";
  } catch (error) {
    if (
      typeof error === "object" &&
      error !== null &&
      "status" in error &&
      typeof error.status === "number"
    ) {
      return error.status;
    }
    throw error;
  }
}

/** A raw request, for bodies a typed client would refuse to send. */
export async function api(
  standIn: RunningStandIn,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; data: unknown }> {
  const res = await fetch(`${standIn.url}${path}`, {
    method,
    headers: { authorization: `token ${TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const data: unknown = text === "" ? undefined : JSON.parse(text);
  return { status: res.status, headers: res.headers, data };
}
