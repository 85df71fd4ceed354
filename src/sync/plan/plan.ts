import type { SettableStatus } from "../../shared/index.js";
import type { IssueRecord, PersonChange, ThreatRecord } from "../schema.js";
import { formatExternalId, parseExternalId } from "../render/normalize.js";
import {
  desiredIssueState,
  verdictFor,
  type CloseReason,
  type IssueState,
  type Policy,
  type Route,
} from "./policy.js";
import { withLabels, type RenderedIssue } from "../render/index.js";
import type { Known } from "./known.js";
import type { SingleMembership } from "../records/group-members.js";
import { ASSET_REMOVED_COMMENT, REOPEN_COMMENT } from "./issue-comments.js";

export { ASSET_REMOVED_COMMENT, REOPEN_COMMENT } from "./issue-comments.js";

/**
 * The planner, pure: (threat, asset, the issue as it shows, a person's change, config) → the next
 * actions that make both sides agree; called again after each until it answers none.
 *
 * Rules (contract, "Conventions on GitHub and on the platform"):
 * - A person's close or reopen comes first: a PATCH verdict unless the platform already holds it.
 * - Both sides changed: the person wins on the platform, its answer drives the issue (README, "Conflicts").
 * - An issue is updated only when what it would show changed (its hash): echoes cost no write.
 */

export type { SettableStatus };

export interface PlanInput {
  threatId: string;
  /** The platform's current threat; `gone`: its asset was removed; `unknown`: not read, nothing planned. */
  threat: Known<{ status: string }>;
  link: { externalId: string; url: string } | null;
  record: ThreatRecord | undefined;
  person: PersonChange | undefined;
  /** Whether the threat should get an issue if it has none (filters, first-seen statuses). */
  eligible: boolean;
  route: Route;
  /** What the issue would show now, with its hash; null when the threat is gone. */
  rendered: { issue: RenderedIssue; hash: string } | null;
  policy: Policy;
  /** `reconcile --recreate`: a threat whose issue a person deleted gets a new one. */
  recreate?: boolean;
  /** Grouping `single` mode: the group's one issue stands for the threat, whose link names it. */
  single?: SingleMembership;
  createWith?: CreateAttributes;
  /** The features' clauses that decide first, in registry order. */
  deciders?: readonly Decider[];
}

/** A feature's clause before the core's, pure: its actions instead of the core's, or null to go on. */
export interface Decider {
  /** A person's change to a live threat's issue, before the core's verdict. */
  person?(input: PlanInput, person: PersonChange): Action[] | null;
  /** An existing issue with no person's change, before the core's issue steps. */
  issue?(input: PlanInput, issue: IssueRecord): Action[] | null;
}

/** What a new issue is created with beyond its rendering, when a feature asks (features/types.ts `createWith`). */
export interface CreateAttributes {
  milestone?: { title: string; dueOn: string };
}

export type Action =
  | { kind: "verdict"; threatId: string; status: SettableStatus; note: string; person: PersonChange }
  | { kind: "accept"; threatId: string; state: IssueState }
  | { kind: "adopt"; threatId: string; repo: string; number: number }
  | {
      kind: "create";
      threatId: string;
      repo: string;
      title: string;
      body: string;
      labels: string[];
      assignees: string[];
      hash: string;
      milestone?: { title: string; dueOn: string };
    }
  | {
      kind: "update";
      threatId: string;
      repo: string;
      number: number;
      state?: IssueState;
      stateReason?: CloseReason | "reopened";
      content?: RenderedIssue;
      hash?: string;
      /** Posted right after a state change, saying why; part of the same intent. */
      comment?: string;
    }
  | { kind: "link"; threatId: string; repo: string; number: number; externalId: string; url: string }
  | FeatureAction;

/** A plug-in feature's write: one kind for all, so the core never names one; `feature`/`step` find its module. */
export interface FeatureAction {
  kind: "feature";
  feature: string;
  step: string;
  threatId: string;
  /** The issue it concerns, where there is one (the dry-run line and the refusal name it). */
  repo?: string;
  number?: number;
  /** A decider's answer: the features' plans beside the core's wait until it is done. */
  decided?: true;
  /** It writes an issue's body rendered from the threat (its related assets are read first). */
  writesBody?: true;
}

/** The platform's threat where it is there; null when it is gone (never called on `unknown`). */
function threatOf(input: PlanInput): { status: string } | null {
  return input.threat.kind === "present" ? input.threat.value : null;
}

function planPerson(input: PlanInput, person: PersonChange): Action[] {
  const personState: IssueState = person.event === "closed" ? "closed" : "open";
  const accept: Action = { kind: "accept", threatId: input.threatId, state: personState };
  // A threat that left the API cannot take a verdict (404); the issue stays as the person left it.
  const threat = threatOf(input);
  if (!threat) return [accept];
  for (const decider of input.deciders ?? []) {
    const decided = decider.person?.(input, person);
    if (decided) return decided;
  }
  const rule = verdictFor(person.event, person.reason, input.policy);
  // Only the very status the verdict sets makes its PATCH needless; `pending` is computed by the
  // platform (spec, "Threat status"), so a person's verdict is still sent.
  if (threat.status === rule.status) return [accept];
  return [
    {
      kind: "verdict",
      threatId: input.threatId,
      status: rule.status,
      note: input.policy.verdictNote(rule.status_note, person),
      person,
    },
  ];
}

function planLink(input: PlanInput, issue: IssueRecord): Action[] {
  const externalId = formatExternalId(issue);
  const shown = input.link;
  if (shown && shown.externalId === externalId && shown.url === issue.url) return [];
  // A reference reaches the stream asynchronously (PUT rule 5): our own write is trusted, not resent.
  if (!shown && input.record?.link === externalId) return [];
  return [
    {
      kind: "link",
      threatId: input.threatId,
      repo: issue.repo,
      number: issue.number,
      externalId,
      url: issue.url,
    },
  ];
}

interface IssueStateStep {
  state: IssueState;
  reason: CloseReason | "reopened";
  comment?: string;
}

const CLOSE_FOR_REMOVAL: IssueStateStep = {
  state: "closed",
  reason: "not_planned",
  comment: ASSET_REMOVED_COMMENT,
};
const REOPEN: IssueStateStep = { state: "open", reason: "reopened", comment: REOPEN_COMMENT };
const CLOSE_COMPLETED: IssueStateStep = { state: "closed", reason: "completed" };
const CLOSE_NOT_PLANNED: IssueStateStep = { state: "closed", reason: "not_planned" };

/**
 * The state change the plan makes to an existing issue, or null. A gone threat's issue is closed
 * with a comment once only, so a person who reopens it wins (contract). queue-order.ts reads it too.
 */
export function issueStateStep(
  status: string | null,
  issue: Pick<IssueRecord, "state">,
  closedForRemoval: boolean,
): IssueStateStep | null {
  if (status === null) return issue.state === "closed" || closedForRemoval ? null : CLOSE_FOR_REMOVAL;
  const desired = desiredIssueState(status);
  if (desired === null || desired.state === issue.state) return null;
  if (desired.state === "open") return REOPEN;
  return desired.reason === "not_planned" ? CLOSE_NOT_PLANNED : CLOSE_COMPLETED;
}

function planExisting(input: PlanInput, issue: IssueRecord): Action[] {
  const { threatId } = input;
  const threat = input.rendered ? threatOf(input) : null;
  const step = issueStateStep(threat?.status ?? null, issue, input.record?.closedForRemoval === true);
  if (!threat || !input.rendered) {
    if (!step) return [];
    return [
      {
        kind: "update",
        threatId,
        repo: issue.repo,
        number: issue.number,
        state: step.state,
        stateReason: step.reason,
        ...(step.comment !== undefined ? { comment: step.comment } : {}),
      },
    ];
  }
  const actions: Action[] = [];
  const changeContent = input.rendered.hash !== issue.hash;
  if (step || changeContent) {
    // One PATCH carries both the state and the content: one GitHub write per status change.
    const update: Extract<Action, { kind: "update" }> = {
      kind: "update",
      threatId,
      repo: issue.repo,
      number: issue.number,
    };
    if (step) {
      update.state = step.state;
      update.stateReason = step.reason;
      if (step.comment !== undefined) update.comment = step.comment;
    }
    if (changeContent) {
      // Rendered when sent, not when planned (intake plans to queue).
      const rendered = input.rendered;
      Object.defineProperty(update, "content", { get: () => rendered.issue, enumerable: true });
      update.hash = rendered.hash;
    }
    actions.push(update);
  }
  actions.push(...planLink(input, issue));
  return actions;
}

/** A single-mode member: only its platform link, naming its group's issue once there is one. */
function planSingleMember(input: PlanInput, single: SingleMembership): Action[] {
  const issue = single.issue;
  if (!issue || !threatOf(input)) return [];
  const externalId = formatExternalId(issue);
  const shown = input.link;
  if (shown && shown.externalId === externalId && shown.url === issue.url) return [];
  if (!shown && input.record?.link === externalId) return [];
  return [{ kind: "link", threatId: input.threatId, ...issue, externalId }];
}

/** Whether the action leaves the issue's state as it is (the features plan beside such a plan). */
export function leavesStateAlone(action: Action): boolean {
  return (
    action.kind === "link" ||
    (action.kind === "feature" && action.decided !== true) ||
    (action.kind === "update" && action.state === undefined)
  );
}

export function plan(input: PlanInput): Action[] {
  // Not read: "gone" would close a live threat's issue, "present" would guess its status.
  if (input.threat.kind === "unknown") return [];
  const issue = input.record?.issue;
  if (input.person && issue) return planPerson(input, input.person);
  if (issue) {
    // The first decider's answer (registry order), as for a person's change; else the core plans.
    for (const decider of input.deciders ?? []) {
      const decided = decider.issue?.(input, issue);
      if (decided) return decided;
    }
    return planExisting(input, issue);
  }
  // A person deleted the issue: no second one unless `reconcile --recreate` asks (README).
  const deleted = input.record?.deletedIssue;
  if (deleted && !input.recreate) return [];
  if (input.single) return planSingleMember(input, input.single);
  // No issue known: the platform's link names one, never a second issue (contract), unless deleted.
  const shown = input.link ? parseExternalId(input.link.externalId) : null;
  const linked =
    shown && deleted && shown.repo === deleted.repo && shown.number === deleted.number ? null : shown;
  if (linked) return [{ kind: "adopt", threatId: input.threatId, repo: linked.repo, number: linked.number }];
  if (!threatOf(input) || !input.rendered || !input.eligible) return [];
  const create = { kind: "create" as const, threatId: input.threatId, ...input.createWith };
  return [newIssue(create, input.route, input.rendered)];
}

export interface NewIssueText {
  readonly title: string;
  readonly body: string;
  readonly labels: string[];
  repo: string;
  assignees: string[];
  hash: string;
}

/** A create; its text is rendered only when sent or described, since intake plans every new threat. */
export function newIssue<T extends object>(
  base: T,
  route: { repo: string; labels: string[]; assignees: string[] },
  rendered: { issue: RenderedIssue; hash: string },
): T & NewIssueText {
  const text = (read: () => unknown) => ({ get: read, enumerable: true, configurable: true });
  return Object.defineProperties(
    { ...base, repo: route.repo, assignees: route.assignees, hash: rendered.hash },
    {
      title: text(() => rendered.issue.title),
      body: text(() => rendered.issue.body),
      // The route's labels are the new issue's only: a person's later change of them stands.
      labels: text(() => withLabels(rendered.issue.labels, route.labels)),
    },
  ) as T & NewIssueText;
}
