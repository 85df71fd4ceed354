import type { IssueSnapshot } from "../../github/index.js";
import { isRecord } from "../../shared/index.js";
import type { SendIo } from "./types.js";

/** What more than one action module needs to send its write. */

/** GitHub answered and did not make the change (a limit, a refusal): nothing to find out later. */
export function surelyRefused(error: unknown): boolean {
  const code = isRecord(error) ? error["code"] : undefined;
  return (
    code === "rate_limited" ||
    code === "validation" ||
    code === "not_found" ||
    code === "unauthorized" ||
    code === "budget_deadline"
  );
}

/**
 * A platform write for a threat that may have left the API meanwhile: a 404 `resource/not-found`
 * answers `gone` (spec: a threat of a removed asset answers 404) instead of failing again and again.
 */
export async function unlessGone<T>(
  write: () => Promise<T>,
): Promise<{ gone: false; answer: T } | { gone: true }> {
  try {
    return { gone: false, answer: await write() };
  } catch (error) {
    if (!(isRecord(error) && error["type"] === "resource/not-found")) throw error;
    return { gone: true };
  }
}

/**
 * Brings the connector's own labels on an issue (the managed, severity and module labels) to
 * `wanted` through the label endpoints, from the labels GitHub's last answer showed: nothing is
 * sent when they already match (the usual case, since they change only with severity or module).
 * Every other label is left as it is: people's, and a route's, which the issue was created with
 * and a person may have removed since (contract, "Conventions": their change stands).
 */
export async function syncLabels(io: SendIo, issue: IssueSnapshot, wanted: readonly string[]): Promise<void> {
  const has = new Set(issue.labels.map((l) => l.toLowerCase()));
  const want = new Set(wanted.map((l) => l.toLowerCase()));
  const add = wanted.filter((l) => !has.has(l.toLowerCase()));
  const remove = issue.labels.filter((l) => io.isManagedLabel(l) && !want.has(l.toLowerCase()));
  if (add.length > 0) await io.github.addLabels(issue.repo, issue.number, add);
  for (const label of remove) await io.github.removeLabel(issue.repo, issue.number, label);
}

/**
 * The login a verdict's audit line names as `by`: null where GitHub did not say who closed or
 * reopened the issue (the person's change then records "unknown": transitions/issue-seen.ts).
 */
export function personLogin(login: string): string | null {
  return login === "unknown" || login === "" ? null : login;
}
