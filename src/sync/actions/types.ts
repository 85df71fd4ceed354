import type { GitHubGateway, GitHubWorkflow, IssueSnapshot } from "../../github/index.js";
import type { PlatformClient, Threat } from "../../platform/index.js";
import type { EngineEvent } from "../../shared/index.js";
import type { GroupRecord, Intent, ThreatRecord } from "../schema.js";
import type { GroupAction } from "../groups/plan-groups.js";
import type { SingleAction } from "../groups/plan-single.js";
import type { RetireAction } from "../groups/retire-plan.js";
import type { Action } from "../plan/plan.js";
import type { QueueClass } from "../plan/queue-class.js";
import type { DryRunRecord } from "../render/dry-run-record.js";

export { QueueClass } from "../plan/queue-class.js";

/** Every action the one runner carries out: the planner's, per threat, and a group subject's. */
export type EngineAction = Action | GroupAction | SingleAction | RetireAction;

/** What a dry run or a plan prints for an action beyond its kind, threat, repository and issue. */
export type ActionDescription = Pick<
  DryRunRecord,
  "labels" | "assignees" | "detail" | "title" | "repository" | "issue"
> & {
  /** The dry-run line's name for it, where it is not the kind (a feature's write: `note`, `project`). */
  action?: string;
  /** Bookkeeping a dry run does not list (it writes nothing anyone sees). */
  hidden?: true;
  /** The audit lines the same write makes after its own (a close's comment), listed after it. */
  then?: ReadonlyArray<{ action: string; detail: string }>;
};

/** What an action module may use to send: the two sides, and nothing of the engine's state. */
export interface SendIo {
  github: GitHubGateway;
  /** Sub-issues and milestones; null where the engine runs without them. */
  workflow: GitHubWorkflow | null;
  platform: PlatformClient;
  /** What a plug-in feature made for its modules once per process (features/types.ts `runtime`). */
  runtimeOf(feature: string): unknown;
  /** Whether a label is of the connector's own vocabulary (people's labels are never touched). */
  isManagedLabel(label: string): boolean;
}

/** What a dry run gives `asAsked`: reads of both sides and the time, never a write. */
export interface AskedIo {
  github: Pick<GitHubGateway, "getIssue" | "listComments">;
  platform: Pick<PlatformClient, "getThreat">;
  nowMs: number;
  /** The number (and id) of an issue a dry run would create: one GitHub never gives an issue. */
  newIssue: number;
}

/** The write-ahead intent a write goes out under (run/intents.ts), and what its failure means. */
export interface IntentSpec {
  fields: Omit<Intent, "id" | "startedAt">;
  /**
   * What resolves a failure: the issue's (`find-by-marker`) or the group's (`find-group-by-marker`)
   * marker, recovery unless GitHub surely refused (`keep-unless-refused`), or the feature's `recover`.
   */
  onFailure: "find-by-marker" | "find-group-by-marker" | "keep-unless-refused" | "feature-recover";
  /** Whether the success may be committed with the next checkpoint (recovery resolves a crash). */
  settleLazily: boolean;
}

/** What an outcome means, as plain data: the runner applies it, emits the events and commits. */
export interface Settlement {
  /** The threat's record after the outcome (a pure transition of transitions/outcome.ts). */
  record?: (record: ThreatRecord) => ThreatRecord;
  events: EngineEvent[];
  /** The issue as GitHub answered; with `mayShowPerson`, a state the connector did not write is a person's. */
  answered?: { issue: IssueSnapshot; mayShowPerson: boolean };
  /** Queue work this outcome finished: a person's change, a create's pending view. */
  finished?: "person" | "pending";
  /** What the run's cache of threats learns: the threat as the platform answered, a new link, or that it left. */
  cache?: { threat: Threat } | { link: { externalId: string; url: string } } | "forget";
  /** The threat's issue was made or taken over: each feature notes what it shows (features/types.ts `onIssueFound`). */
  found?: IssueSnapshot;
  /** A person deleted the issue (GitHub answered 404 or 410): the threat is no longer managed. */
  deleted?: { repo: string; number: number };
  /** The write landed but a follow-up failed (a comment): its intent stays for recovery. */
  unfinished?: unknown;
  /** The group's record after the outcome, under the group's key (a pure transition of transitions/group.ts). */
  group?: { id: string; change: (group: GroupRecord) => GroupRecord };
  /** A single-mode group's issue was made: its members are queued for their platform links. */
  linkMembers?: { groupId: string; repo: string };
  /** A fact for the log; with `once`, said once per process under that key. */
  notice?: { level: "info" | "warn"; once?: string; fields: object; message: string };
  /** `checkpoint`: committed within a second; `none`: with the intent, or not at all. */
  commit: "checkpoint" | "none";
}

/** One kind of action, whole: the registry's type makes a module required for every kind. */
export interface ActionModule<A extends EngineAction = Action, O = unknown> {
  kind: A["kind"];
  /** The queue class of a plan holding this action. */
  priority(action: A): QueueClass;
  /** Whether carrying it out spends the GitHub write budget (a deadline defers it). */
  spendsGitHubBudget(action: A): boolean;
  /** Whether `reconcile` (mapping repairs only) may carry it out. */
  mappingRepair: boolean;
  /** Whether `reconcile` may carry out this one, where it depends on the action (a feature's step): then `mappingRepair` is not read. */
  repairs?(action: A): boolean;
  describe(action: A): ActionDescription;
  /** Read the issue first unless the change list is fresh: a person's change wins (README, "Conflicts"). */
  readFirst?(action: A): boolean;
  /** The intent it goes out under, if it is not idempotent or changes an issue's state. */
  intent?(action: A): IntentSpec | null;
  /** Sends it; answers what GitHub or the platform said. Touches nothing of the engine. */
  send(action: A, io: SendIo, intent: Intent | null): Promise<O>;
  /** What the answer means (pure). */
  settle(action: A, outcome: O): Settlement;
  /**
   * What the write would answer had it landed as asked, for a dry run: the dry run settles it and
   * plans again, so what follows the write is listed too. Undefined: nothing follows that it can tell.
   */
  asAsked?(action: A, io: AskedIo): Promise<O | undefined>;
  /** The milestone its write needs, made first where the repository lacks it (listed first by a dry run). */
  milestoneOf?(action: A): { repo: string; title: string } | null;
}

export type ActionOf<K extends EngineAction["kind"]> = Extract<EngineAction, { kind: K }>;
