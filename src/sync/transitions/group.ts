import type { IssueSnapshot } from "../../github/index.js";
import type { GroupIssue, GroupParent, GroupRecord } from "../schema.js";

/** Pure transitions of a group's record: what the connector's writes to its issues make of it. */

/** The parent in `repo` set (made, or found again by its marker). */
export function withParent(group: GroupRecord, repo: string, parent: GroupParent): GroupRecord {
  return { ...group, parents: { ...group.parents, [repo]: parent } };
}

/** The parent in `repo` changed; a group with none there is left as it is. */
export function parentChanged(
  group: GroupRecord,
  repo: string,
  change: (parent: GroupParent) => GroupParent,
): GroupRecord {
  const parent = group.parents[repo];
  return parent ? withParent(group, repo, change(parent)) : group;
}

/** A parent just made: open, its content as written, nothing attached yet. */
export function parentMade(issue: IssueSnapshot, hash: string): GroupParent {
  return {
    number: issue.number,
    ...(issue.id !== null ? { id: issue.id } : {}),
    url: issue.url,
    state: "open",
    hash,
    attached: [],
  };
}

/** The single-mode issue in `repo` set or changed (`change` gets undefined where there is none). */
export function singleChanged(
  group: GroupRecord,
  repo: string,
  change: (issue: GroupIssue | undefined) => GroupIssue | undefined,
): GroupRecord {
  const next = change(group.single?.[repo]);
  return next === undefined ? group : { ...group, single: { ...group.single, [repo]: next } };
}

/** A single-mode issue made (or found again, in the state GitHub shows). */
export function singleMade(
  issue: IssueSnapshot,
  hash: string,
  state: "open" | "closed" = "open",
): GroupIssue {
  return {
    number: issue.number,
    ...(issue.id !== null ? { id: issue.id } : {}),
    url: issue.url,
    state,
    hash,
  };
}

/** A superseded group's issue retired a step further; once every issue is `noted`, its members are let go. */
export function groupRetired(
  group: GroupRecord,
  issueKind: "parent" | "single",
  repo: string,
  step: "closed" | "noted",
): GroupRecord {
  const next: GroupRecord =
    issueKind === "parent"
      ? parentChanged(group, repo, (p) => ({ ...p, state: "closed", retired: step }))
      : singleChanged(group, repo, (i) => (i === undefined ? i : { ...i, state: "closed", retired: step }));
  const issues = [...Object.values(next.parents), ...Object.values(next.single ?? {})];
  return issues.every((i) => i.retired === "noted") ? { ...next, members: {} } : next;
}

/** GitHub refused a write to the parent in `repo` for good (deleted, locked, archived): written no more. */
export function parentRefused(group: GroupRecord, repo: string, reason: string): GroupRecord {
  return parentChanged(group, repo, (p) => ({ ...p, refused: reason }));
}

/** GitHub refused a write to the single-mode issue in `repo` for good: written no more, never made twice. */
export function singleRefused(group: GroupRecord, repo: string, reason: string): GroupRecord {
  return singleChanged(group, repo, (i) => (i === undefined ? i : { ...i, refused: reason }));
}
