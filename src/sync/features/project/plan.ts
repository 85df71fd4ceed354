import type { GroupRecord, ThreatRecord } from "../../schema.js";
import type { FeatureAction } from "../../plan/plan.js";
import { sliceOf } from "../types.js";
import { decodeGroupSlice, decodeSlice, FEATURE, issueKey, valueHash, type ProjectSlice } from "./slice.js";

/** Adds the threat's issue to the project (its id, when the record holds it). */
export interface AddItemAction extends FeatureAction {
  feature: typeof FEATURE;
  step: "add";
  repo: string;
  number: number;
  /** The issue's GitHub id; absent for an issue recorded before ids were kept (read once then). */
  issueId?: number;
}

/** Sets the item's changed fields, all in one PATCH. */
export interface SetFieldsAction extends FeatureAction {
  feature: typeof FEATURE;
  step: "fields";
  repo: string;
  number: number;
  itemId: number;
  /** The rendered text of each changed field, by configured name. */
  values: Record<string, string>;
}

export type ProjectAction = AddItemAction | SetFieldsAction;

/** The fields whose rendered text differs from what the slice says was last written. Pure. */
function changedFields(slice: ProjectSlice, rendered: ReadonlyMap<string, string>): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const [name, text] of rendered) if (slice.v[name] !== valueHash(text)) changed[name] = text;
  return changed;
}

/** A threat's project writes, pure: the add, then a PATCH of the fields whose rendered value changed. */
export function planProjectWrites(
  threatId: string,
  record: ThreatRecord,
  rendered: ReadonlyMap<string, string> | null,
): ProjectAction[] {
  const issue = record.issue;
  if (!issue || record.gone) return [];
  const slice = decodeSlice(sliceOf(record, FEATURE));
  const base = {
    kind: "feature" as const,
    feature: FEATURE,
    threatId,
    repo: issue.repo,
    number: issue.number,
  };
  if (!slice || slice.k !== issueKey(issue)) {
    return [{ ...base, step: "add", ...(issue.id === undefined ? {} : { issueId: issue.id }) }];
  }
  // A person removed the item from the board: it is not added again.
  if (slice.i === 0 || rendered === null) return [];
  const values = changedFields(slice, rendered);
  return Object.keys(values).length === 0 ? [] : [{ ...base, step: "fields", itemId: slice.i, values }];
}

/** A group's own issue, as its record holds it: a parent (parent mode) or its one issue (single mode). */
export interface GroupIssueRef {
  repo: string;
  number: number;
  /** GitHub's id of the issue; absent when not recorded (read once at the add). */
  id?: number | undefined;
}

/** The group's issues that join the project: not one refused for good, nor a retired one. */
export function groupIssues(group: GroupRecord): GroupIssueRef[] {
  const all = [...Object.entries(group.parents), ...Object.entries(group.single ?? {})];
  return all.flatMap(([repo, issue]) =>
    issue.refused !== undefined || issue.retired !== undefined
      ? []
      : [{ repo, number: issue.number, ...(issue.id === undefined ? {} : { id: issue.id }) }],
  );
}

/** The project's writes for a group's issues, as for a threat's, under the group's key. */
export function planGroupWrites(
  groupId: string,
  group: GroupRecord,
  render: (issue: GroupIssueRef) => ReadonlyMap<string, string>,
): ProjectAction[] {
  if (group.superseded !== undefined) return [];
  const items = decodeGroupSlice(sliceOf(group, FEATURE));
  return groupIssues(group).flatMap((issue): ProjectAction[] => {
    const base = {
      kind: "feature" as const,
      feature: FEATURE,
      threatId: groupId,
      repo: issue.repo,
      number: issue.number,
    };
    const item = items[issueKey(issue)];
    if (item === undefined)
      return [{ ...base, step: "add", ...(issue.id === undefined ? {} : { issueId: issue.id }) }];
    if (item.i === 0) return [];
    const values = changedFields({ k: issueKey(issue), ...item }, render(issue));
    return Object.keys(values).length === 0 ? [] : [{ ...base, step: "fields", itemId: item.i, values }];
  });
}
