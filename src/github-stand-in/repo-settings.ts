import type { Reply } from "./reply.js";

/** Which repositories exist and which are archived, without issues, or restricted; by default, all, writable. */
export interface RepoSettings {
  /** GitHub answers writes to an archived repository 403 ("Repository was archived so is read-only."). */
  archived?: boolean | undefined;
  /** GitHub answers the issue routes of such a repository 410 ("Issues are disabled for this repo"). */
  hasIssues?: boolean | undefined;
  /** The `permissions` of `GET /repos/{owner}/{repo}` for the caller; default push/triage/pull. */
  permissions?: RepoPermissions | undefined;
}

interface RepoPermissions {
  admin: boolean;
  maintain: boolean;
  push: boolean;
  triage: boolean;
  pull: boolean;
}

export const DEFAULT_PERMISSIONS: RepoPermissions = {
  admin: false,
  maintain: false,
  push: true,
  triage: true,
  pull: true,
};

/** Settings by lower-case `owner/name` (GitHub's names are case-insensitive). */
export type RepoDirectory = ReadonlyMap<string, RepoSettings> | null;

export function repoDirectory(repositories: Record<string, RepoSettings> | undefined): RepoDirectory {
  if (repositories === undefined) return null;
  return new Map(Object.entries(repositories).map(([name, settings]) => [name.toLowerCase(), settings]));
}

export function settingsOf(directory: RepoDirectory, owner: string, repo: string): RepoSettings {
  return directory?.get(`${owner}/${repo}`.toLowerCase()) ?? {};
}

/** GitHub's answer before any handler: 404 no repository, 410 issues disabled, 403 a write to an archived one; else null. */
export function repoGate(
  directory: RepoDirectory,
  params: Record<string, string>,
  pattern: string,
  isWrite: boolean,
): Reply | null {
  const owner = params["owner"];
  const repo = params["repo"];
  if (directory === null || owner === undefined || repo === undefined) return null;
  const settings = directory.get(`${owner}/${repo}`.toLowerCase());
  if (settings === undefined)
    return { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" } };
  if (settings.hasIssues === false && pattern.startsWith("/repos/{owner}/{repo}/issues"))
    return { status: 410, body: { message: "Issues are disabled for this repo" } };
  if (settings.archived === true && isWrite)
    return { status: 403, body: { message: "Repository was archived so is read-only." } };
  return null;
}
