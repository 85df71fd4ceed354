import { z } from "zod";
import type { Logger } from "../observability/logger.js";
import { GitHubError } from "./errors.js";
import type { ReadDeps } from "./issue-reads.js";
import { getPage } from "./rest-calls.js";
import { unlessUnavailable, type Unavailable } from "./unavailable.js";

type IssueTypeList = { available: true; types: string[] } | Unavailable;

/** Whether a repository offers the configured issue type, as `check` reports it. */
export type IssueTypeOffer =
  | { offer: "offered"; name: string }
  | { offer: "not_offered"; offered: string[] }
  | { offer: "unavailable"; status: number; message: string };

const IssueTypes = z.array(
  z.looseObject({ name: z.string(), is_enabled: z.boolean().optional() }).nullable(),
);

/** `GET /repos/{o}/{r}/issue-types`: the enabled types the repository offers (GitHub does not page it). */
export async function listIssueTypes(deps: ReadDeps, repo: string): Promise<IssueTypeList> {
  const ctx = await deps.forRepo(repo);
  return unlessUnavailable(async () => {
    const page = await getPage(ctx, `/repos/${repo}/issue-types`);
    const parsed = IssueTypes.safeParse(page.data);
    if (!parsed.success)
      throw new GitHubError(
        "response_invalid",
        `GitHub answered the issue types of ${repo} with an unexpected body`,
      );
    const types = parsed.data.flatMap((t) => (t === null || t.is_enabled === false ? [] : [t.name]));
    return { available: true as const, types };
  });
}

/** Which type names match: GitHub compares issue type names without regard to case. */
export function offerOf(wanted: string, list: IssueTypeList): IssueTypeOffer {
  if (!list.available) return { offer: "unavailable", status: list.status, message: list.message };
  const name = list.types.find((t) => t.toLowerCase() === wanted.toLowerCase());
  return name === undefined ? { offer: "not_offered", offered: list.types } : { offer: "offered", name };
}

/** A 422 of an issue create that is about its `type` (GitHub: `{field: "type", code: "invalid"}`). */
export function isTypeRefusal(error: unknown): boolean {
  if (!(error instanceof GitHubError) || error.status !== 422) return false;
  const entries = error.request?.errors ?? [];
  return entries.some((e) => e.field === "type") || /\btype\b/i.test(error.request?.message ?? "");
}

/** The configured issue type per repository, once per process; a refusing repository is marked, no loop. */
export function createIssueTypePolicy(opts: { wanted: string | undefined; reads: ReadDeps; logger: Logger }) {
  const decided = new Map<string, Promise<string | null>>();

  async function decide(repo: string, wanted: string): Promise<string | null> {
    const offer = offerOf(wanted, await listIssueTypes(opts.reads, repo));
    if (offer.offer === "offered") return offer.name;
    if (offer.offer === "not_offered")
      opts.logger.warn(
        { repo, issue_type: wanted, offered: offer.offered },
        "the repository does not offer the configured issue type (github.issue_type): its issues are created without a type",
      );
    else
      opts.logger.warn(
        { repo, issue_type: wanted, status: offer.status },
        "GitHub does not offer issue types for this repository (GET …/issue-types was refused): its issues are created without a type",
      );
    return null;
  }

  return {
    /** The type name to send with a create in `repo`, or null. A failed read is thrown, not cached. */
    async typeFor(repo: string): Promise<string | null> {
      const wanted = opts.wanted;
      if (wanted === undefined) return null;
      const key = repo.toLowerCase();
      let found = decided.get(key);
      if (found === undefined) {
        found = decide(repo, wanted);
        decided.set(key, found);
        // A transient failure is not remembered: the next create asks again.
        const pending = found;
        pending.catch(() => {
          if (decided.get(key) === pending) decided.delete(key);
        });
      }
      return found;
    },
    /** GitHub refused a create over its type: the repository is taken as not offering it. */
    refused(repo: string, error: GitHubError): void {
      decided.set(repo.toLowerCase(), Promise.resolve(null));
      opts.logger.warn(
        {
          repo,
          issue_type: opts.wanted,
          status: error.status,
          message: error.request?.message ?? error.message,
        },
        "GitHub refused the configured issue type (github.issue_type): this repository's issues are created without a type from now on",
      );
    },
  };
}
