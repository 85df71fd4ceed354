import type { IssueSnapshot } from "../../github/index.js";
import { nowIso, type SyncContext } from "../context.js";
import { createAction } from "../actions/create.js";
import type { EngineAction } from "../actions/index.js";
import type { ActionOf } from "../actions/types.js";
import { issueFound, pluggedFor } from "../features/registry.js";
import { planFor } from "../plan/plan-for.js";
import { updateThreat } from "../records/state-updates.js";
import type { DryRunRecord } from "../render/dry-run-record.js";
import { milestoneBook } from "./run-action.js";

/**
 * What a new issue brings with it, as a dry run shows it (contract, "Workflow": "`sync --dry-run`
 * shows every one of these writes before they happen"; "The conversation back": it "lists note
 * writes and project writes like any other"). The drain writes these in the same cycle once the
 * create has answered: the weekly milestone the issue is created in (made first where the
 * repository lacks it), the features' writes for the new issue (its project item, its note), and
 * its group's parent once the group's members have issues (the group's own plan, after the
 * threats'). A dry run sends nothing, so the create is taken as answered by an issue no GitHub
 * issue can be (number NEW_ISSUE), in the dry run's state only, which is never saved: the plans
 * that follow see the new issue as the drain would, and their lines show it as new.
 */

/** The number of an issue a dry run would create: far past any number GitHub gives an issue. */
export const NEW_ISSUE = Number.MAX_SAFE_INTEGER;

type CreateAction = ActionOf<"create">;

/** The milestone a create would make before it (the repository lacks it), once per repository and title. */
async function madeMilestone(
  ctx: SyncContext,
  create: CreateAction,
  shown: Set<string>,
): Promise<DryRunRecord | null> {
  const wanted = create.milestone;
  if (!wanted || !ctx.workflow) return null;
  const key = `${create.repo.toLowerCase()}\n${wanted.title}`;
  if (shown.has(key)) return null;
  shown.add(key);
  let has: boolean | null;
  try {
    has = await milestoneBook(ctx).has(ctx.workflow, create.repo, wanted.title);
  } catch {
    // A read that fails: the create's own line stands; the sync makes the milestone as it goes.
    return null;
  }
  if (has !== false) return null;
  return {
    action: "milestone",
    threat_id: create.threatId,
    repository: create.repo,
    detail: `milestone "${wanted.title}"`,
  };
}

/** The state as the create's answer would leave it: the threat's issue made (and found by the features). */
function answeredAsNew(ctx: SyncContext, create: CreateAction): void {
  const issue: IssueSnapshot = {
    repo: create.repo,
    number: NEW_ISSUE,
    // Its id is known from the create's answer: an attach needs no read of it first.
    id: NEW_ISSUE,
    url: "",
    state: "open",
    stateReason: null,
    title: create.title,
    body: create.body,
    labels: create.labels,
    assignees: create.assignees,
    updatedAt: nowIso(ctx),
    threatId: create.threatId,
  };
  const settled = createAction.settle(create, { issue, minimal: false, milestone: null });
  const found = settled.found;
  const finding = found !== undefined && pluggedFor(ctx.config).onIssueFound.length > 0;
  updateThreat(ctx, create.threatId, (record) => {
    const made = settled.record ? settled.record(record) : record;
    return finding ? issueFound(ctx.config, made, found) : made;
  });
}

export interface NewIssuePreview {
  /** The milestone a create makes first, if it makes one. */
  before(create: CreateAction): Promise<DryRunRecord | null>;
  /** The features' writes for the issue the create makes (the core's own, its link, are not listed). */
  after(create: CreateAction): EngineAction[];
}

export function newIssuePreview(ctx: SyncContext): NewIssuePreview {
  const milestones = new Set<string>();
  return {
    before: (create) => madeMilestone(ctx, create, milestones),
    after(create) {
      answeredAsNew(ctx, create);
      return planFor(ctx, create.threatId).filter((action) => action.kind === "feature");
    },
  };
}
