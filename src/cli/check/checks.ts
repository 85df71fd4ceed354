import type { Config } from "../../config/index.js";
import {
  GitHubError,
  type GitHubConversation,
  type GitHubGateway,
  type RepositoryReader,
} from "../../github/index.js";
import { featuresFor } from "../../sync/features/registry.js";
import {
  FAILURE_HINTS,
  PlatformError,
  PlatformTokenError,
  type PlatformClient,
} from "../../platform/index.js";
import { diagnose, diagnosisHint, type Diagnosis } from "./diagnose.js";
import { subIssuesCheck, subIssuesCheckName, wantsSubIssues } from "./sub-issues-check.js";

/**
 * The checks of `threatbridge check` (contract, "Command line"): a platform token, one page of
 * each stream, the GitHub credentials, and for every configured repository that it can be read,
 * has issues enabled, is not archived and, where GitHub's answer shows `permissions`, that the
 * credentials may write issues. Each check is one result with a hint when it fails.
 */

/** `warn`: works, with something left out (e.g. no issue type there); it does not fail `check`. */
export type CheckStatus = "pass" | "fail" | "skip" | "warn";

export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
  /** What to do next; set on every failure. */
  hint?: string;
  /** Which of DNS, network, TLS, timeout or credentials failed, where a call failed. */
  diagnosis?: Diagnosis;
}

export interface CheckDeps {
  platform: Pick<PlatformClient, "streamThreats" | "streamAssets">;
  github: Pick<GitHubGateway, "whoAmI"> & RepositoryReader;
  /** Projects and comments, for the features that use them; absent in tests that need none. */
  conversation?: GitHubConversation;
}

/** Every repository the config names, with where it is named (`github.repository`, `routes[N].repository`). */
export function configuredRepositories(config: Config): Map<string, string[]> {
  const repos = new Map<string, string[]>();
  const add = (repo: string, origin: string): void => {
    const key = repo.toLowerCase();
    const found = [...repos.keys()].find((name) => name.toLowerCase() === key);
    if (found === undefined) repos.set(repo, [origin]);
    else repos.get(found)?.push(origin);
  };
  add(config.github.repository, "github.repository");
  config.routes.forEach((route, index) => {
    if (route.repository !== undefined) add(route.repository, `routes[${index}].repository`);
  });
  return repos;
}

const PLATFORM_CREDENTIALS = "platform.client_id, client_secret (or client_secret_file) and token_auth";
const GITHUB_CREDENTIALS = "github.token (or token_file) or github.app";

function failure(check: string, error: unknown, url: string, credentials: string): CheckResult {
  const status =
    error instanceof PlatformError || error instanceof GitHubError ? (error.status ?? null) : null;
  const oauthError = error instanceof PlatformTokenError ? error.oauthError : undefined;
  const diagnosis = diagnose(error, { status, oauthError });
  let detail = error instanceof Error ? error.message : String(error);
  // The token error's own advice is about credentials: not what to check when the network failed.
  if (error instanceof PlatformTokenError && diagnosis !== "credentials" && diagnosis !== "other")
    detail = detail.replace(/; check platform\.client_id.*$/s, "");
  // The check's hint says what to do: the platform error's own hint (`FAILURE_HINTS`) is not said twice.
  if (diagnosis !== "other")
    for (const hint of Object.values(FAILURE_HINTS)) detail = detail.replace(`; ${hint}`, "");
  return { check, status: "fail", detail, hint: diagnosisHint(diagnosis, url, credentials), diagnosis };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

async function firstPage(pages: AsyncIterable<{ items: unknown[] }>): Promise<number> {
  for await (const page of pages) return page.items.length;
  return 0;
}

async function platformChecks(config: Config, deps: CheckDeps): Promise<CheckResult[]> {
  const tokenCheck = `platform token (${config.platform.token_url})`;
  const threats = "platform threat stream (one page)";
  const assets = "platform asset stream (one page)";
  let count: number;
  try {
    // The first request takes a token: its failure is the token's, not the stream's.
    count = await firstPage(deps.platform.streamThreats(null));
  } catch (error) {
    if (error instanceof PlatformTokenError) {
      const skipped = { status: "skip" as const, detail: "skipped: no platform token" };
      return [
        failure(tokenCheck, error, config.platform.token_url, PLATFORM_CREDENTIALS),
        { check: threats, ...skipped },
        { check: assets, ...skipped },
      ];
    }
    return [
      { check: tokenCheck, status: "pass", detail: "a token was issued" },
      failure(threats, error, config.platform.base_url, PLATFORM_CREDENTIALS),
      await assetCheck(),
    ];
  }
  return [
    { check: tokenCheck, status: "pass", detail: "a token was issued" },
    { check: threats, status: "pass", detail: `one page read (${plural(count, "threat")})` },
    await assetCheck(),
  ];

  async function assetCheck(): Promise<CheckResult> {
    try {
      const n = await firstPage(deps.platform.streamAssets(null));
      return { check: assets, status: "pass", detail: `one page read (${plural(n, "asset")})` };
    } catch (error) {
      return failure(assets, error, config.platform.base_url, PLATFORM_CREDENTIALS);
    }
  }
}

/** A user's token shows `permissions`; writing issues (close, label, assign) takes triage or more. */
function mayWriteIssues(
  permissions: NonNullable<Awaited<ReturnType<RepositoryReader["repository"]>>["permissions"]>,
): boolean {
  return (
    permissions.triage === true ||
    permissions.push === true ||
    permissions.maintain === true ||
    permissions.admin === true
  );
}

async function repositoryCheck(
  repo: string,
  origins: string[],
  deps: CheckDeps,
  config: Config,
): Promise<CheckResult> {
  const check = `github repository ${repo} (${origins.join(", ")})`;
  const named = origins.join(" or ");
  let answer;
  try {
    answer = await deps.github.repository(repo);
  } catch (error) {
    if (error instanceof GitHubError && (error.status === 404 || error.status === 403)) {
      return {
        check,
        status: "fail",
        detail: error.message,
        hint: `repository ${repo} is not there or these credentials cannot see it: check ${named} for a typo (owner/name), and that the token (or the App's installation) has access to ${repo}`,
      };
    }
    return failure(check, error, config.github.api_url, GITHUB_CREDENTIALS);
  }
  if (answer.archived === true)
    return {
      check,
      status: "fail",
      detail: `${answer.full_name} is archived: GitHub refuses every write to it`,
      hint: `unarchive ${answer.full_name}, or point ${named} at another repository`,
    };
  if (answer.has_issues === false)
    return {
      check,
      status: "fail",
      detail: `${answer.full_name} has issues disabled`,
      hint: `enable Issues in the settings of ${answer.full_name}, or point ${named} at another repository`,
    };
  if (answer.permissions !== undefined && !mayWriteIssues(answer.permissions))
    return {
      check,
      status: "fail",
      detail: `the credentials may read ${answer.full_name} but not write its issues`,
      hint: `give the token the permission Issues: read and write (fine-grained token), or triage access to ${answer.full_name}`,
    };
  const permissions = answer.permissions === undefined ? "" : ", issues writable";
  return { check, status: "pass", detail: `readable, issues enabled, not archived${permissions}` };
}

/**
 * Whether a repository offers `github.issue_type` (contract, "Issue type"): offered, not offered,
 * or the issue-type endpoint unavailable. The last two are warnings: issues are still created
 * there, without a type.
 */
async function issueTypeCheck(
  repo: string,
  wanted: string,
  deps: CheckDeps,
  config: Config,
): Promise<CheckResult> {
  const check = `github issue type "${wanted}" in ${repo}`;
  let offer;
  try {
    offer = await deps.github.issueTypeOffer(repo);
  } catch (error) {
    return failure(check, error, config.github.api_url, GITHUB_CREDENTIALS);
  }
  if (offer === null || offer.offer === "offered")
    return { check, status: "pass", detail: "offered: issues are created with this type" };
  if (offer.offer === "not_offered") {
    const offered = offer.offered.length === 0 ? "none" : offer.offered.join(", ");
    return {
      check,
      status: "warn",
      detail: `not offered (the repository offers: ${offered}); issues there are created without a type`,
      hint: `add the type in the organization's issue types, or set github.issue_type to one it offers`,
    };
  }
  return {
    check,
    status: "warn",
    detail: `the issue-type endpoint is unavailable (GitHub answered ${offer.status}: ${offer.message}); issues there are created without a type`,
    hint: "issue types need GitHub.com or a GitHub Enterprise Server release that has them, in an organization's repository",
  };
}

export async function runChecks(config: Config, deps: CheckDeps): Promise<CheckResult[]> {
  const results = await platformChecks(config, deps);
  const credentials = "github credentials";
  let githubOk = false;
  try {
    const login = await deps.github.whoAmI();
    results.push({ check: credentials, status: "pass", detail: `acting as ${login}` });
    githubOk = true;
  } catch (error) {
    results.push(failure(credentials, error, config.github.api_url, GITHUB_CREDENTIALS));
  }
  for (const [repo, origins] of configuredRepositories(config)) {
    if (!githubOk) {
      const check = `github repository ${repo} (${origins.join(", ")})`;
      results.push({ check, status: "skip", detail: "skipped: the GitHub credentials failed" });
      continue;
    }
    const repoResult = await repositoryCheck(repo, origins, deps, config);
    results.push(repoResult);
    if (repoResult.status === "pass" && wantsSubIssues(config, deps.github)) {
      try {
        results.push(await subIssuesCheck(repo, deps.github));
      } catch (error) {
        results.push(failure(subIssuesCheckName(repo), error, config.github.api_url, GITHUB_CREDENTIALS));
      }
    }
    const wanted = config.github.issue_type;
    if (wanted === undefined) continue;
    if (repoResult.status === "pass") results.push(await issueTypeCheck(repo, wanted, deps, config));
    else
      results.push({
        check: `github issue type "${wanted}" in ${repo}`,
        status: "skip",
        detail: "skipped: the repository check failed",
      });
  }
  // Each configured plug-in feature's own checks (a project's fields, a note's field on reads).
  for (const feature of featuresFor(config)) {
    if (!feature.check) continue;
    if (!githubOk) {
      results.push({ check: feature.name, status: "skip", detail: "skipped: the GitHub credentials failed" });
      continue;
    }
    try {
      results.push(...(await feature.check(config, deps)));
    } catch (error) {
      results.push(failure(feature.name, error, config.github.api_url, GITHUB_CREDENTIALS));
    }
  }
  return results;
}
