import type { GroupRecord, ThreatRecord } from "../../schema.js";
import type { Settlement } from "../../actions/types.js";
import { subjectKind } from "../../records/subject.js";
import { sliceOf, withSlice } from "../types.js";
import {
  decodeGroupSlice,
  decodeSlice,
  encodeGroupSlice,
  encodeSlice,
  FEATURE,
  issueKey,
  type GroupItem,
} from "./slice.js";

/** What changes one issue's item: its recorded item (undefined: none) → the new one (undefined: unchanged). */
export type ItemUpdate = (item: GroupItem | undefined) => GroupItem | undefined;

/** A threat's record with its issue's item changed (its slice holds one item, for its current issue). */
export function threatItemChanged(record: ThreatRecord, key: string, update: ItemUpdate): ThreatRecord {
  const slice = decodeSlice(sliceOf(record, FEATURE));
  const next = update(slice && slice.k === key ? { i: slice.i, v: slice.v } : undefined);
  return next === undefined ? record : withSlice(record, FEATURE, encodeSlice({ k: key, ...next }));
}

/** A group's record with one of its issues' items changed (its slice holds one item per issue). */
export function groupItemChanged(group: GroupRecord, key: string, update: ItemUpdate): GroupRecord {
  const items = decodeGroupSlice(sliceOf(group, FEATURE));
  const next = update(items[key]);
  return next === undefined ? group : withSlice(group, FEATURE, encodeGroupSlice({ ...items, [key]: next }));
}

/** The item's change on its subject's record: a threat's, or the group's for a group's issue. */
export function itemChange(
  action: { threatId: string; repo: string; number: number },
  update: ItemUpdate,
): Pick<Settlement, "record" | "group"> {
  const key = issueKey(action);
  if (subjectKind(action.threatId) === "group")
    return { group: { id: action.threatId, change: (g) => groupItemChanged(g, key, update) } };
  return { record: (r) => threatItemChanged(r, key, update) };
}
