import { REPO, type World } from "./world.js";

/** Helpers of the end-to-end tests of people on GitHub, refusals and deleted issues. */

export const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;
export const OTHER_REPO = "acme/elsewhere";

export function threatOf(body: string | null): string {
  return MARKER.exec(body ?? "")?.[1] ?? "";
}

/**
 * One `sync` through the CLI's `main` in this process; its exit code. What these tests show is the
 * engine's answer to people and refusals, the same on either side of a process boundary.
 */
export async function sync(w: World, args: string[] = []): Promise<number | null> {
  const result = await w.run(["sync", "-c", w.configPath, ...args]);
  return result.code;
}

export interface StatusJson {
  threats: { mapped: number };
  intents: unknown[];
  refused?: Array<{ threat_id: string; action: string; reason: string }>;
  deleted_issues?: Array<{ threat_id: string; issue: string }>;
}

export async function status(w: World): Promise<StatusJson> {
  return JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as StatusJson;
}

export function firstIssue(w: World): { number: number; threatId: string } {
  const issue = w.gh.issues(REPO)[0];
  if (!issue) throw new Error("no issue was created");
  return { number: issue.number, threatId: threatOf(issue.body) };
}
