/** Which newer issue features a repository offers (sub-issues, issue types); without them, their routes answer 404. */
export interface FeatureOptions {
  /** `true` (default): everywhere; `false`: nowhere; or the `owner/name`s without them. */
  subIssues?: boolean | { unavailableIn: string[] } | undefined;
  /** Names of the issue types per organization (owner login); `"unavailable"`: the routes answer 404. */
  issueTypes?: Record<string, string[]> | "unavailable" | undefined;
  /** `true` (default): the projects REST API exists; `false`: its routes answer 404 (an older GHES). */
  projects?: boolean | undefined;
}

export interface IssueTypeRecord {
  id: number;
  name: string;
}

export interface Features {
  subIssuesIn(owner: string, repo: string): boolean;
  /** null: the issue-type routes do not exist here (404); else the owner's types (maybe none). */
  issueTypesOf(owner: string): IssueTypeRecord[] | null;
  /** Whether the owner is an organization with issue types (only then does an issue carry `type`). */
  hasIssueTypes(owner: string): boolean;
  /** An organization's admin changes its issue types (tests: a type removed between two creates). */
  setIssueTypes(owner: string, names: string[]): void;
  projectsOn(): boolean;
}

/** A stable id per owner and type name, so the same type keeps its id across requests. */
function typeId(owner: string, name: string): number {
  let h = 7;
  for (const ch of `${owner.toLowerCase()}/${name.toLowerCase()}`)
    h = (Math.imul(h, 31) + (ch.codePointAt(0) ?? 0)) >>> 0;
  return (h % 9_000_000) + 100_000;
}

export function createFeatures(opts: FeatureOptions): Features {
  const sub = opts.subIssues ?? true;
  const without =
    typeof sub === "object" ? new Set(sub.unavailableIn.map((n) => n.toLowerCase())) : new Set<string>();
  const types = opts.issueTypes ?? {};
  const byOwner = new Map<string, IssueTypeRecord[]>(
    types === "unavailable"
      ? []
      : Object.entries(types).map(([owner, names]) => [
          owner.toLowerCase(),
          names.map((name) => ({ id: typeId(owner, name), name })),
        ]),
  );
  return {
    subIssuesIn: (owner, repo) =>
      typeof sub === "boolean" ? sub : !without.has(`${owner}/${repo}`.toLowerCase()),
    issueTypesOf: (owner) => (types === "unavailable" ? null : (byOwner.get(owner.toLowerCase()) ?? [])),
    hasIssueTypes: (owner) => byOwner.has(owner.toLowerCase()),
    projectsOn: () => opts.projects ?? true,
    setIssueTypes(owner, names) {
      byOwner.set(
        owner.toLowerCase(),
        names.map((name) => ({ id: typeId(owner, name), name })),
      );
    },
  };
}
