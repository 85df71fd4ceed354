import { z } from "zod";
import type { ImportedShape } from "./import-shapes.js";

export type { SlaRecord } from "./import-shapes.js";

/**
 * The state file's schema. It is written atomically after every step that must survive a crash
 * (docs/architecture.md, "Never a duplicate"), so it holds only what the connector cannot re-read
 * cheaply: cursors, the threat↔issue mapping, what the connector last wrote, the queue of due work
 * and the write-ahead intents. Bump STATE_VERSION and add a migration when its shape changes.
 */
export const STATE_VERSION = 1;

const IssueState = z.enum(["open", "closed"]);

/** The issue the connector made for a threat, as the connector last wrote or accepted it. */
export const IssueRecord = z.object({
  repo: z.string(),
  number: z.int().positive(),
  url: z.string(),
  /** Open or closed as last written by the connector or accepted from a person. */
  state: IssueState,
  /** Hash of what the issue shows (title, body, labels) as last written. */
  hash: z.string(),
  /**
   * GitHub's id of the issue (not its number): the sub-issues API names a child by it. Absent for
   * issues recorded before it was kept, or answered without one; read once when a group needs it.
   */
  id: z.number().int().positive().optional(),
});
export type IssueRecord = z.infer<typeof IssueRecord>;

export const ThreatRecord = z.object({
  /** Last effective status read from the platform (stream, single read or PATCH response). */
  status: z.string(),
  /** Severity rank 0 (informational) .. 4 (critical): the queue's order within a class (queue.ts). */
  severity: z.int().min(0).max(4),
  assetId: z.string().nullable(),
  /** updated_at of the last version processed: the same one again is a re-delivery (spec, "Events"). */
  updatedAt: z.string(),
  /**
   * The threat left the API because its asset was removed; absent when not. (`position`, once
   * written and never read, is dropped when an older state is read: nothing is stored that is never read.)
   */
  gone: z.boolean().optional(),
  issue: IssueRecord.optional(),
  /** external_id of the platform's `github` reference as last seen or written. */
  link: z.string().optional(),
  /**
   * The last step GitHub refused for good (403 locked or archived, 404, 422): recorded, shown by
   * `status`, and not retried until new work comes for the threat.
   */
  refused: z.object({ action: z.string(), reason: z.string(), at: z.string() }).optional(),
  /**
   * A person deleted the threat's issue: the threat is no longer managed and gets no second issue
   * unless `reconcile --recreate` says so (README, "Deleted, transferred, locked, unlabelled").
   */
  deletedIssue: z.object({ repo: z.string(), number: z.int().positive(), at: z.string() }).optional(),
  /** The connector closed the issue because the asset was removed; a person's reopen then wins. */
  closedForRemoval: z.boolean().optional(),
  /**
   * The plug-in features' own data on the threat (src/sync/features/), by feature name, each an
   * opaque string only its feature reads and writes: a new feature adds nothing to this schema.
   * The store keeps each in `feature_data` (feature, subject = the threat's id), not in the row.
   */
  slices: z.record(z.string(), z.string()).optional(),
});
export type ThreatRecord = z.infer<typeof ThreatRecord> & ImportedShape;

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
  number: z.int().positive(),
  url: z.string(),
  seenAt: z.string(),
  /** The issue's labels when a person closed it "not planned" (a risk acceptance needs its label). */
  labels: z.array(z.string()).optional(),
});
export type PersonChange = z.infer<typeof PersonChange>;

/**
 * What a queued create needs to render its issue (the threat's mapped fields and its platform
 * link), so that it is never read again because the run's cache overflowed.
 */
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
 * Work stored for one threat: only what cannot be derived from the state. Its
 * order (priority class, then severity, then age) is derived from the threat's record
 * (src/sync/records/queue.ts `dueWork`); entries written before that carried `priority` and `severity`,
 * which the schema drops when such a state is read (the conversion: nothing else changed).
 */
export const QueueEntry = z.object({
  /** Age order: the state's sequence when the work first became due. */
  seq: z.int().nonnegative(),
  enqueuedAt: z.string(),
  /** A person's change waiting to become a verdict. */
  person: PersonChange.optional(),
  attempts: z.int().nonnegative().default(0),
  /** Epoch ms before which the entry is not retried (after a failure). */
  notBefore: z.number().optional(),
  lastError: z.string().optional(),
  /** A create's view, kept until the issue is created (dropped then). */
  pending: PendingView.optional(),
  /**
   * Work the clock alone made due (an SLA breach): planned from the record, with no read of the
   * threat. Any other work for the threat clears it (transitions/due-work.ts).
   */
  timed: z.literal(true).optional(),
  /**
   * Work that waits for all other work (a feature's backfill: issues made before a project was
   * configured join it at the lowest priority). Any other work for the threat clears it.
   */
  later: z.literal(true).optional(),
});
export type QueueEntry = z.infer<typeof QueueEntry>;

/** A threat of a group, as the group's checklist shows it (its issue is read from its record). */
export const GroupMember = z.object({
  /** The threat's title as last read from the platform. */
  title: z.string(),
  /** Severity rank 0 (informational) .. 4 (critical), for the group's highest open severity. */
  severity: z.int().min(0).max(4),
  /**
   * Single mode only (the member has no issue of its own): its platform status as last read, its
   * asset's id, and the repository its route names; the group's issue follows these.
   */
  status: z.string().optional(),
  assetId: z.string().nullable().optional(),
  repo: z.string().optional(),
  /**
   * The `updated_at` the platform answered to this member's verdict from a person's change of its
   * group's issue: a version read later but older than it (a walk from the start) is stale.
   */
  verdictAt: z.string().optional(),
});
export type GroupMember = z.infer<typeof GroupMember>;

/** A group's parent issue in one repository (grouping `parent` mode). */
export const GroupParent = z.object({
  number: z.int().positive(),
  /** GitHub's id of the parent issue, when known. */
  id: z.number().int().positive().optional(),
  url: z.string(),
  /**
   * The state the connector last made the parent follow (all members closed: closed). Only a
   * change of that target is written: a person's close or reopen of the parent is not undone.
   */
  state: IssueState,
  /** Hash of the title and body as last written (the revision line's). */
  hash: z.string(),
  /** Threat ids whose issues were attached as sub-issues (at most 100: GitHub's limit). */
  attached: z.array(z.string()),
  /**
   * Why members are listed in the checklist only: the repository has no sub-issues
   * (`unavailable`), or the parent holds GitHub's 100 (`full`). Said once, when set.
   */
  checklistOnly: z.enum(["unavailable", "full"]).optional(),
  /**
   * GitHub refused the parent for good (a person deleted it: 404 or 410; locked or archived: 403):
   * it is written no more, and the group gets no second parent.
   */
  refused: z.string().optional(),
  /** Retired after a change of `grouping` (groups/retire-plan.ts): closed, then the comment naming its members' issues. */
  retired: z.enum(["closed", "noted"]).optional(),
});
export type GroupParent = z.infer<typeof GroupParent>;

/** A group's one issue in one repository (grouping `single` mode). */
export const GroupIssue = z.object({
  number: z.int().positive(),
  id: z.number().int().positive().optional(),
  url: z.string(),
  /** The state the connector last wrote or accepted from a person. */
  state: IssueState,
  hash: z.string(),
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
      /** The members its verdicts go to, and of them those still to send. */
      targets: z.array(z.string()),
      pending: z.array(z.string()),
    })
    .optional(),
  /** The members the last person's close sent a closing verdict to (a reopen sends them `unsolved`). */
  closedByPerson: z.array(z.string()).optional(),
  refused: z.string().optional(),
  /** Retired after a change of `grouping` (groups/retire-plan.ts): closed, then the comment naming its members' issues. */
  retired: z.enum(["closed", "noted"]).optional(),
});
export type GroupIssue = z.infer<typeof GroupIssue>;

/**
 * One group of threats, stored under `group:<by>:<key>` (src/state/README-store.md): its members
 * (kept as their versions are read, so no cycle reads the platform for them) and its parent
 * issue per repository (groups are per repository, after routing).
 */
export const GroupRecord = z.object({
  by: z.enum(["asset", "title", "module", "cve"]),
  key: z.string(),
  members: z.record(z.string(), GroupMember),
  parents: z.record(z.string(), GroupParent),
  /** Single mode: the group's one issue per repository. */
  single: z.record(z.string(), GroupIssue).optional(),
  /** The grouping mode it was made under (absent in states written before it was kept: inferred). */
  mode: z.enum(["parent", "single"]).optional(),
  /**
   * When `grouping` changed so that this record's setting (`by`, `mode`) is no longer the
   * configured one: the record was moved to a key of its own (groups/supersede.ts), a person's
   * change of its issues is still absorbed under its setting, and its issues are retired.
   */
  superseded: z.string().optional(),
  /**
   * Each plug-in feature's data on the group (its issues' project items, say), by feature name: an
   * opaque string the feature reads and writes (features/types.ts `sliceOf`, `withSlice`), as on a
   * threat's record. Absent when no feature keeps anything (and in states written before it was kept).
   */
  slices: z.record(z.string(), z.string()).optional(),
});
export type GroupRecord = z.infer<typeof GroupRecord>;

/** Recorded before a non-idempotent or state-changing GitHub write; removed once its outcome is recorded. */
const IntentFields = z.object({
  id: z.string(),
  // A comment that follows a state change is part of that change's intent; `comment` is a comment
  // that is its own step (a risk acceptance's end, its warning, a recurrence's note).
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

/** An intent as stored: one written before `markerNumber` was so named keeps it as `occurrence`. */
function renamedKeys(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("occurrence" in value)) return value;
  const { occurrence, ...rest } = value;
  return "markerNumber" in rest ? rest : { ...rest, markerNumber: occurrence };
}

export const Intent = z.preprocess(renamedKeys, IntentFields);
export type Intent = z.infer<typeof IntentFields>;

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
  /** What the GitHub side looked like when the cycle ended, for `status` (optional: older files lack it). */
  github: z
    .object({
      /** GitHub writes the process sent since it started. */
      writes: z.number(),
      /** Of them, in the hour before the cycle ended (counted by the write budget when it has a per_hour). */
      usedLastHour: z.number(),
      /**
       * When those writes were sent (epoch ms, oldest first), and a Retry-After pause in force: for
       * `status`'s ETA, which counts what the budget's windows still hold (optional: older files lack it).
       */
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
 * behaviour" rule 5: a state restored from another installation, a platform-side reset): when,
 * and the platform's words. Sending it again gets the same answer, so the stream is stopped until
 * `threatbridge rewind` forgets the cursor; the other stream and GitHub's side go on.
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
  /** Streams stopped because the platform refused their cursor; absent when none is. */
  cursorRefused: CursorRefusals.optional(),
  /** Per repository: the `since` watermark of the last read of people's changes, and ETags. */
  github: z.object({
    since: z.record(z.string(), z.string()),
    /** The GitHub gateway's ETag cache (its own format, validated by the gateway on import). */
    etags: z.array(z.unknown()),
  }),
  assets: z.record(z.string(), AssetRecord),
  threats: z.record(z.string(), ThreatRecord),
  queue: z.record(z.string(), QueueEntry),
  intents: z.record(z.string(), Intent),
  /** Groups of threats by their key (`group:<by>:<key>`); absent in states written before groups. */
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
  /**
   * Epoch ms before which the platform asked not to be called (a Retry-After, spec "Errors"
   * rule 1): a later cycle or process sends nothing to it before then.
   */
  platformNotBefore: z.number().optional(),
  /**
   * What plug-in features keep beyond one threat's record (a watermark per repository, say), by
   * feature name; each feature checks its own value when it reads it.
   */
  features: z.record(z.string(), z.unknown()).optional(),
  /**
   * Every group with work left was queued once (the one queue's initial list, run/cycle.ts): after
   * that a group is queued by its members' changes, in the same commit as the change, so a later
   * process need not plan every group again. Absent in a state written before the one queue.
   */
  groupsListed: z.literal(true).optional(),
  /**
   * The grouping setting (`<by>/<mode>`, null: none) under which a cycle's start last looked at
   * every stored group (run/cycle.ts), and whether that look left superseded records. While the
   * config has the same setting and none was left, every current group was made under it: a
   * cycle's start has nothing to supersede and reads no group. Absent in a state written before it.
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
