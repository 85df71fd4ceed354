import type { IssueSnapshot } from "../../github/index.js";
import { parseGroupMarker, parseRevision } from "../../shared/index.js";
import type { SyncContext } from "../context.js";
import { parentMade } from "../transitions/group.js";
import { groupRuntime } from "./membership.js";
import { setParent } from "./parent-state.js";
import { recordCreated } from "./single-members.js";
import { supersededGroups } from "./supersede.js";

/**
 * At most one issue per group and repository, ever (contract, "Groups"), also after a lost state:
 * before a group's issue is created, the repository's group-labelled issues are listed once and
 * one carrying the group's marker is adopted. Listed again only while the state holds none there.
 */

/** A planned create of a group's issue: its group and repository. */
export interface GroupCreate {
  groupId: string;
  repo: string;
}

/** The numbers of the issues in `repo` that superseded records hold (groups/supersede.ts). */
function supersededIssues(ctx: SyncContext, repo: string): Set<number> {
  const numbers = new Set<number>();
  for (const [, group] of supersededGroups(ctx)) {
    const parent = group.parents[repo];
    const single = group.single?.[repo];
    if (parent) numbers.add(parent.number);
    if (single) numbers.add(single.number);
  }
  return numbers;
}

function stateHoldsAnIssueIn(ctx: SyncContext, repo: string): boolean {
  return Object.values(ctx.state.groups ?? {}).some(
    (g) => g.parents[repo] !== undefined || g.single?.[repo] !== undefined,
  );
}

/** The repository's group issues by group id (the oldest where two name one group). */
async function listFound(ctx: SyncContext, repo: string): Promise<Map<string, IssueSnapshot>> {
  const found = new Map<string, IssueSnapshot>();
  if (!ctx.workflow) return found;
  const issues = await ctx.workflow.listGroupIssues(repo);
  const old = supersededIssues(ctx, repo);
  for (const issue of [...issues].sort((a, b) => a.number - b.number)) {
    const marker = parseGroupMarker(issue.body);
    // An issue of a setting since changed is retired, never taken over by the new setting's group.
    if (marker === null || issue.repo !== repo || old.has(issue.number)) continue;
    const groupId = `group:${marker.by}:${marker.key}`;
    if (!found.has(groupId)) found.set(groupId, issue);
  }
  return found;
}

function adopt(ctx: SyncContext, groupId: string, repo: string, issue: IssueSnapshot): void {
  // The revision line says whether the content is current; without one it is rewritten once.
  const hash = parseRevision(issue.body) ?? "";
  if (ctx.config.grouping?.mode === "single") {
    recordCreated(ctx, groupId, repo, issue, hash, issue.state);
  } else {
    // Attached members are not known: each attach is answered "already attached" and recorded.
    setParent(ctx, groupId, repo, { ...parentMade(issue, hash), state: issue.state });
  }
  ctx.logger.info(
    { group: groupId, issue: `${repo}#${issue.number}` },
    "a group's issue was found on GitHub by its marker and taken over; no second one is made",
  );
}

/** What {@link adoptExisting} did: how many it adopted, and the repositories it could not list. */
export interface Adoption {
  adopted: number;
  /** Their creates wait for the next pass: none goes out before the list answered. */
  unlisted: Set<string>;
}

/** Adopts, for each planned create, the group's issue found on GitHub; those creates are planned again. */
export async function adoptExisting(ctx: SyncContext, creates: readonly GroupCreate[]): Promise<Adoption> {
  const result: Adoption = { adopted: 0, unlisted: new Set() };
  if (creates.length === 0 || !ctx.workflow) return result;
  const runtime = groupRuntime(ctx);
  const listedNow = new Set<string>();
  for (const { groupId, repo } of creates) {
    if (result.unlisted.has(repo)) continue;
    if (!listedNow.has(repo) && (!runtime.found.has(repo) || !stateHoldsAnIssueIn(ctx, repo))) {
      listedNow.add(repo);
      try {
        runtime.found.set(repo, await listFound(ctx, repo));
      } catch (error) {
        result.unlisted.add(repo);
        ctx.logger.warn(
          { repo, err: error },
          "the repository's group issues could not be listed; its groups' issues are made next pass",
        );
        continue;
      }
    }
    const issue = runtime.found.get(repo)?.get(groupId);
    const group = ctx.state.groups?.[groupId];
    if (!issue || !group) continue;
    runtime.found.get(repo)?.delete(groupId);
    // Already known (adopted a moment ago, or created under an intent since): nothing to take over.
    if (group.parents[repo] !== undefined || group.single?.[repo] !== undefined) continue;
    adopt(ctx, groupId, repo, issue);
    result.adopted += 1;
  }
  return result;
}

/** Whether an action may go out: no create in a repository whose group issues were not listed. */
export function allowedAfter(adoption: Adoption, action: { kind: string; repo: string }): boolean {
  return !(action.kind.endsWith("_create") && adoption.unlisted.has(action.repo));
}
