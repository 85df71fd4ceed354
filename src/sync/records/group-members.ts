import type { GroupRecord } from "../schema.js";
import { groupTally } from "./group-tally.js";

/**
 * Which group each member threat is in, from the stored groups (grouping): built once per process
 * on first use and kept current by the membership updates (groups/membership.ts), so neither the
 * planner nor a group's plan walks every group to find a threat's.
 */
export function buildMemberIndex(
  groups: Readonly<Record<string, GroupRecord>> | undefined,
): Map<string, string> {
  const byThreat = new Map<string, string>();
  for (const [groupId, group] of Object.entries(groups ?? {})) {
    // A group of a setting the config no longer has (groups/supersede.ts) files no member.
    if (group.superseded !== undefined) continue;
    for (const threatId of Object.keys(group.members)) byThreat.set(threatId, groupId);
  }
  return byThreat;
}

/**
 * Whether any group is stored: the current setting's, or an older setting's whose issues still
 * take people's changes or wait to be retired (contract, "Changing grouping"). None stored (the
 * default config, or grouping off since before any group was made): no threat is a member of one
 * or links to a group's issue, so a threat's path does not enter the grouping code at all.
 */
export function anyGroupStored(groups: Readonly<Record<string, GroupRecord>> | undefined): boolean {
  // Counted, not walked: asked once per threat planned (group-tally.ts).
  return groupTally(groups).all > 0;
}

/** In single mode, a member's group issue where it is (null: the group has none there yet). */
export interface SingleMembership {
  groupId: string;
  issue: { repo: string; number: number; url: string } | null;
}

/** A threat's single-mode membership: its group's issue in the repository its route names. */
export function singleMembership(
  groups: Readonly<Record<string, GroupRecord>> | undefined,
  byThreat: ReadonlyMap<string, string>,
  threatId: string,
): SingleMembership | undefined {
  const groupId = byThreat.get(threatId);
  const group = groupId === undefined ? undefined : groups?.[groupId];
  const member = group?.members[threatId];
  if (groupId === undefined || !group || member?.repo === undefined) return undefined;
  const issue = group.single?.[member.repo];
  return {
    groupId,
    issue: issue ? { repo: member.repo, number: issue.number, url: issue.url } : null,
  };
}

/**
 * Whether `repo#number` is a group's issue (a single-mode group issue or a parent): a threat whose
 * platform link names one (it left its group, or grouping was switched off) does not adopt it as
 * its own. Walks the groups: asked only for a threat with a link and no issue.
 */
export function isGroupIssueRef(
  groups: Readonly<Record<string, GroupRecord>> | undefined,
  repo: string,
  number: number,
): boolean {
  for (const group of Object.values(groups ?? {})) {
    if (group.single?.[repo]?.number === number || group.parents[repo]?.number === number) return true;
  }
  return false;
}

/**
 * A former single-mode member's status as its verdict's answer gave it, when `repo#number` (its
 * link) is its group's issue: the verdict sent for a person's change of that issue.
 */
export function memberVerdict(
  groups: Readonly<Record<string, GroupRecord>> | undefined,
  repo: string,
  number: number,
  threatId: string,
): { status: string; at: string } | undefined {
  for (const group of Object.values(groups ?? {})) {
    if (group.single?.[repo]?.number !== number) continue;
    const member = group.members[threatId];
    if (member?.verdictAt !== undefined && member.status !== undefined) {
      return { status: member.status, at: member.verdictAt };
    }
  }
  return undefined;
}
