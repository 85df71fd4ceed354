import { z } from "zod";

/**
 * The stored records (src/state/README-store.md): only what the connector cannot re-read cheaply:
 * cursors, the threat↔issue mapping, what the connector last wrote, the queue of due work and the
 * write-ahead intents. A record read from an older state keeps its meaning (fields it lacks are optional).
 */
export const STATE_VERSION = 1;

const IssueState = z.enum(["open", "closed"]);
const IssueNumber = z.int().positive();
/** Severity rank 0 (informational) .. 4 (critical). */
const SeverityRank = z.int().min(0).max(4);

/** The issue the connector made for a threat, as the connector last wrote or accepted it. */
export const IssueRecord = z.object({
  repo: z.string(),
  number: IssueNumber,
  url: z.string(),
  state: IssueState,
  /** Hash of what the issue shows (title, body, labels) as last written. */
  hash: z.string(),
  /** GitHub's id of the issue, by which the sub-issues API names a child: read once a group needs it. */
  id: z.number().int().positive().optional(),
});
export type IssueRecord = z.infer<typeof IssueRecord>;

export const ThreatRecord = z.object({
  /** Last effective status read from the platform (stream, single read or PATCH response). */
  status: z.string(),
  /** The queue's order within a class (queue.ts). */
  severity: SeverityRank,
  assetId: z.string().nullable(),
  /** updated_at of the last version processed: the same one again is a re-delivery (spec, "Events"). */
  updatedAt: z.string(),
  /** The threat left the API because its asset was removed. */
  gone: z.boolean().optional(),
  issue: IssueRecord.optional(),
  /** external_id of the platform's `github` reference as last seen or written. */
  link: z.string().optional(),
  /** The last step GitHub refused for good (403 locked or archived, 404, 422): not retried until new work comes. */
  refused: z.object({ action: z.string(), reason: z.string(), at: z.string() }).optional(),
  /**
   * A person deleted the threat's issue: the threat is no longer managed and gets no second issue
   * unless `reconcile --recreate` says so (README, "Deleted, transferred, locked, unlabelled").
   */
  deletedIssue: z.object({ repo: z.string(), number: IssueNumber, at: z.string() }).optional(),
  /** The connector closed the issue because the asset was removed; a person's reopen then wins. */
  closedForRemoval: z.boolean().optional(),
  /**
   * The plug-in features' own data (src/sync/features/), by feature name, each an opaque string
   * only its feature reads and writes (stored in `feature_data`): a new feature adds nothing here.
   */
  slices: z.record(z.string(), z.string()).optional(),
});
export type ThreatRecord = z.infer<typeof ThreatRecord>;

export const AssetRecord = z.object({
  name: z.string().nullable(),
  type: z.string().nullable(),
  deleted: z.boolean(),
  updatedAt: z.string(),
});
export type AssetRecord = z.infer<typeof AssetRecord>;

/** A person's close or reopen seen on GitHub, waiting to become a PATCH verdict. */
export const PersonChange = z.object({
  event: z.enum(["closed", "reopened"]),
  reason: z.string().nullable(),
  login: z.string(),
  repo: z.string(),
  number: IssueNumber,
  url: z.string(),
  seenAt: z.string(),
  /** The issue's labels when a person closed it "not planned" (a feature may read a close by its label). */
  labels: z.array(z.string()).optional(),
});
export type PersonChange = z.infer<typeof PersonChange>;

/** What a queued create needs to render its issue, so that it is never read again from the platform. */
export const PendingView = z.object({
  view: z.object({
    id: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    severity: z.string().nullable(),
    severityRank: z.number().nullable(),
    module: z.string().nullable(),
    status: z.string(),
    ageDays: z.number().nullable(),
    assetId: z.string().nullable(),
    moduleData: z.record(z.string(), z.unknown()).nullable(),
    updatedAt: z.string(),
  }),
  link: z.object({ externalId: z.string(), url: z.string() }).nullable(),
});
export type PendingView = z.infer<typeof PendingView>;

/**
 * Work stored for one threat: only what cannot be derived (its order comes from the threat's
 * record: src/sync/records/queue.ts `dueWork`; an older entry's `priority` and `severity` are dropped).
 */
export const QueueEntry = z.object({
  /** Age order: the state's sequence when the work first became due. */
  seq: z.int().nonnegative(),
  enqueuedAt: z.string(),
  person: PersonChange.optional(),
  attempts: z.int().nonnegative().default(0),
  /** Epoch ms before which the entry is not retried (after a failure). */
  notBefore: z.number().optional(),
  lastError: z.string().optional(),
  /** A create's view, kept until the issue is created. */
  pending: PendingView.optional(),
  /** Work the clock alone made due (a feature's clock), planned from the record with no read of the threat. */
  timed: z.literal(true).optional(),
  /** Work that waits for all other work (a feature's backfill). Other work for the threat clears this and `timed`. */
  later: z.literal(true).optional(),
});
export type QueueEntry = z.infer<typeof QueueEntry>;

/** A threat of a group, as the group's checklist shows it (its issue is read from its record). */
export const GroupMember = z.object({
  title: z.string(),
  severity: SeverityRank,
  /** Single mode only (the member has no issue of its own): what the group's issue follows. */
  status: z.string().optional(),
  assetId: z.string().nullable().optional(),
  repo: z.string().optional(),
  /** The `updated_at` the platform answered to a verdict from the group's issue: an older version read later is stale. */
  verdictAt: z.string().optional(),
});
export type GroupMember = z.infer<typeof GroupMember>;

/** An issue of a group in one repository (a parent, or single mode's one issue). */
const GroupIssueBase = z.object({
  number: IssueNumber,
  id: z.number().int().positive().optional(),
  url: z.string(),
  /** The state the connector last wrote (a parent: made it follow) or accepted from a person. */
  state: IssueState,
  /** Hash of the title and body as last written (the revision line's). */
  hash: z.string(),
  /** GitHub refused it for good (deleted: 404 or 410; locked or archived: 403): written no more, never a second one. */
  refused: z.string().optional(),
  /** Retired after a change of `grouping` (groups/retire-plan.ts): closed, then the comment naming its members' issues. */
  retired: z.enum(["closed", "noted"]).optional(),
});

/** A group's parent issue (grouping `parent` mode): only a change of its target state is written. */
export const GroupParent = GroupIssueBase.extend({
  /** Threat ids whose issues were attached as sub-issues (at most 100: GitHub's limit). */
  attached: z.array(z.string()),
  /** Why members are listed in the checklist only: no sub-issues in the repository, or 100 held. */
  checklistOnly: z.enum(["unavailable", "full"]).optional(),
});
export type GroupParent = z.infer<typeof GroupParent>;

/** A group's one issue (grouping `single` mode). */
export const GroupIssue = GroupIssueBase.extend({
  /**
   * A person closed or reopened it: the verdicts still to send, one per member (a close: to each
   * member open on the platform; a reopen: `unsolved` to those the close closed).
   */
  person: z
    .object({
      event: z.enum(["closed", "reopened"]),
      reason: z.string().nullable(),
      login: z.string(),
      seenAt: z.string(),
      targets: z.array(z.string()),
      pending: z.array(z.string()),
    })
    .optional(),
  /** The members the last person's close sent a closing verdict to (a reopen sends them `unsolved`). */
  closedByPerson: z.array(z.string()).optional(),
});
export type GroupIssue = z.infer<typeof GroupIssue>;

/**
 * One group of threats under `group:<by>:<key>`: its members (kept as their versions are read, so
 * no cycle reads the platform for them) and its issues per repository (groups are per repository).
 */
export const GroupRecord = z.object({
  by: z.enum(["asset", "title", "module", "cve"]),
  key: z.string(),
  members: z.record(z.string(), GroupMember),
  parents: z.record(z.string(), GroupParent),
  single: z.record(z.string(), GroupIssue).optional(),
  /** The grouping mode it was made under (absent: inferred). */
  mode: z.enum(["parent", "single"]).optional(),
  /**
   * `grouping` changed away from this record's setting: it was moved to a key of its own
   * (groups/supersede.ts), a person's change of its issues is still absorbed under its setting,
   * and its issues are retired.
   */
  superseded: z.string().optional(),
  /** The features' data on the group, as on a threat's record (features/types.ts `sliceOf`, `withSlice`). */
  slices: z.record(z.string(), z.string()).optional(),
});
export type GroupRecord = z.infer<typeof GroupRecord>;

/** Recorded before a non-idempotent or state-changing GitHub write; removed once its outcome is recorded. */
export const Intent = z.object({
  id: z.string(),
  // A comment that follows a state change is part of that change's intent; `comment` is a comment
  // that is its own step (a feature's step, named by `step`).
  // `group_create`: a group's parent issue; its `threatId` is the group's key (`group:<by>:<key>`).
  // `feature`: a plug-in feature's write (src/sync/features/); its feature resolves it (`feature`, `data`).
  kind: z.enum(["create", "issue_state", "group_create", "comment", "feature"]),
  /**
   * Whose write it is: a threat's, or a group's (src/sync/records/subject.ts), whose key is then
   * `threatId`. Absent in states written before it was kept: the key says (`intentSubject`).
   */
  subject: z.enum(["threat", "group"]).optional(),
  threatId: z.string(),
  repo: z.string(),
  number: z.int().positive().optional(),
  /** For issue_state: the state being written. */
  target: IssueState.optional(),
  /** For issue_state: the comment saying why, so that one that never reached GitHub is sent after a crash. */
  body: z.string().optional(),
  /** For comment: the step it finishes on the threat's record once it is on the issue. */
  step: z.enum(["accept", "warn", "recur"]).optional(),
  /** For create: the number the new issue's marker carries (a feature's later issue); absent means 1. */
  markerNumber: z.int().positive().optional(),
  /** For feature: the feature whose write it is, and what that feature needs to resolve it. */
  feature: z.string().optional(),
  data: z.string().optional(),
  startedAt: z.string(),
});

export type Intent = z.infer<typeof Intent>;

export const RetryRecord = z.object({
  attempts: z.int().nonnegative(),
  lastError: z.string(),
  since: z.string(),
});
export type RetryRecord = z.infer<typeof RetryRecord>;

export const LastCycle = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  ok: z.boolean(),
  error: z.string().optional(),
  counts: z.record(z.string(), z.number()),
  /** GitHub's side when the cycle ended, for `status`. */
  github: z
    .object({
      /** GitHub writes the process sent since it started; of them, in the hour before the cycle ended. */
      writes: z.number(),
      usedLastHour: z.number(),
      /** When those writes were sent (epoch ms, oldest first) and a Retry-After pause: `status`'s ETA. */
      recentWrites: z.array(z.number()).optional(),
      pausedUntil: z.string().optional(),
      /** GitHub's primary rate limit as its last answer showed it. */
      rateLimit: z
        .object({
          remaining: z.number(),
          limit: z.number().nullable(),
          resetAt: z.string().nullable(),
          seenAt: z.string(),
        })
        .optional(),
    })
    .optional(),
});
export type LastCycle = z.infer<typeof LastCycle>;

/**
 * The platform refused a stream's saved cursor (400 `request/invalid-cursor`, spec "Common list
 * behaviour" rule 5): when, and its words. The stream stops until `threatbridge rewind`.
 */
export const CursorRefusal = z.object({ at: z.string(), detail: z.string() });
export type CursorRefusal = z.infer<typeof CursorRefusal>;

export const CursorRefusals = z.object({
  assets: CursorRefusal.optional(),
  threats: CursorRefusal.optional(),
});
export type CursorRefusals = z.infer<typeof CursorRefusals>;

export const State = z.object({
  version: z.literal(STATE_VERSION),
  cursors: z.object({ assets: z.string().nullable(), threats: z.string().nullable() }),
  cursorRefused: CursorRefusals.optional(),
  /** Per repository: the `since` watermark of the last read of people's changes; the gateway's ETag cache. */
  github: z.object({ since: z.record(z.string(), z.string()), etags: z.array(z.unknown()) }),
  assets: z.record(z.string(), AssetRecord),
  threats: z.record(z.string(), ThreatRecord),
  queue: z.record(z.string(), QueueEntry),
  intents: z.record(z.string(), Intent),
  groups: z.record(z.string(), GroupRecord).optional(),
  /** Items that failed to parse, by id: re-read with a single GET on later cycles. */
  retry: z.object({
    threats: z.record(z.string(), RetryRecord),
    assets: z.record(z.string(), RetryRecord),
  }),
  seq: z.int().nonnegative(),
  lastCycle: LastCycle.nullable(),
  /** Fingerprint of the config that shapes issues; when it changes, threats are read again from the start. */
  renderKey: z.string().optional(),
  /** Epoch ms before which the platform asked not to be called (a Retry-After, spec "Errors" rule 1). */
  platformNotBefore: z.number().optional(),
  /** What plug-in features keep beyond one record, by feature name; each checks its own value. */
  features: z.record(z.string(), z.unknown()).optional(),
  /**
   * Every group with work left was queued once (run/cycle.ts): since then a group is queued by its
   * members' changes, in the same commit, so a later process need not plan every group again.
   */
  groupsListed: z.literal(true).optional(),
  /**
   * The grouping setting (`<by>/<mode>`, null: none) under which a cycle's start last looked at
   * every stored group, and whether that left superseded records. While neither changed, a
   * cycle's start has nothing to supersede and reads no group.
   */
  groupingSeen: z.object({ setting: z.string().nullable(), superseded: z.boolean() }).optional(),
});
export type State = z.infer<typeof State>;

export function emptyState(): State {
  return {
    version: STATE_VERSION,
    cursors: { assets: null, threats: null },
    github: { since: {}, etags: [] },
    assets: {},
    threats: {},
    queue: {},
    intents: {},
    retry: { threats: {}, assets: {} },
    seq: 0,
    lastCycle: null,
  };
}

/** What the order of a threat's queued work reads of its record (sync/plan/queue-order.ts). */
export type ThreatBrief = Pick<ThreatRecord, "status" | "severity" | "gone" | "closedForRemoval" | "link"> & {
  issue?: Pick<IssueRecord, "repo" | "number" | "state"> | undefined;
};
