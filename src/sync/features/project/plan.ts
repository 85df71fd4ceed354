import type { ThreatRecord } from "../../../state/index.js";
import type { FeatureAction } from "../../plan/plan.js";
import { sliceOf } from "../types.js";
import { decodeSlice, FEATURE, issueKey, valueHash, type ProjectSlice } from "./slice.js";

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
export function changedFields(
  slice: ProjectSlice,
  rendered: ReadonlyMap<string, string>,
): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const [name, text] of rendered) if (slice.v[name] !== valueHash(text)) changed[name] = text;
  return changed;
}

/**
 * The project's writes for a threat, pure over the record and what the run rendered: the add while
 * the slice names no item for the threat's issue, then one PATCH of the fields whose rendered value
 * changed since it was written. Nothing when settled: a person's edit on the board stands until the
 * threat changes that value (nothing reads the board), and an echo of the connector's own write
 * renders the same values, so it costs nothing.
 */
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
