/**
 * What the engine did, as one typed union: the audit log, the cycle summary, /metrics, the
 * progress line and the demo observe it, each keeping its own tally. It imports nothing, so layers
 * below and above the engine share the vocabulary without importing it.
 */

export interface IssueRef {
  repo: string;
  number: number;
}

type Stream = "threats" | "assets";

/** Writes the connector made to either side: each is one audit line (contract, "Logs"). */
export type WriteEvent =
  | { type: "created"; threatId: string; issue: IssueRef }
  | { type: "updated"; threatId: string; issue: IssueRef }
  | { type: "closed"; threatId: string; issue: IssueRef }
  | { type: "reopened"; threatId: string; issue: IssueRef }
  | { type: "commented"; threatId: string; issue: IssueRef }
  | { type: "linked"; threatId: string; issue: IssueRef }
  /**
   * `detail` is the status sent (PATCH /v1/threats/{id}), `answered` the status the platform
   * answered with (its effective status: spec, PATCH rule 3), `by` the GitHub login of the person
   * whose close or reopen it carries (null where GitHub did not say who).
   */
  | {
      type: "verdict_sent";
      threatId: string;
      issue: IssueRef;
      detail: string;
      answered: string | null;
      by: string | null;
    }
  /**
   * A group's parent issue written (contract, "Groups"); `threatId` is the group's key
   * (`group:<by>:<key>`), `detail` what was written: create, update, close or reopen.
   */
  | { type: "group_written"; threatId: string; issue: IssueRef; detail: string }
  /** A threat's issue attached to its group's parent (`issue`) as a sub-issue; `detail` names it. */
  | { type: "attached"; threatId: string; issue: IssueRef; detail: string }
  /** A person's "not planned" close with the acceptance label sent as `accepted`; `detail` is its end (YYYY-MM-DD). */
  | { type: "risk_accepted"; threatId: string; issue: IssueRef; detail: string }
  /** The one comment `acceptance.warn_before` the end of a risk acceptance. */
  | { type: "expiry_warned"; threatId: string; issue: IssueRef }
  /** A risk acceptance ended: `unsolved` sent to the platform. */
  | { type: "risk_expired"; threatId: string; issue: IssueRef }
  /** A new issue for a threat unsolved again (`recurrence: new_issue`); `detail` names the old one. */
  | { type: "recurred"; threatId: string; issue: IssueRef; detail: string }
  /** The SLA's breach label was added to an open issue past its due date. */
  | { type: "sla_breach_labeled"; threatId: string; issue: IssueRef }
  /** A weekly SLA milestone was made on demand (`detail`: its title) for this issue. */
  | { type: "milestone_created"; threatId: string; issue: IssueRef; detail: string }
  /** The issue was put into its weekly SLA milestone (`detail`: its title). */
  | { type: "milestone_set"; threatId: string; issue: IssueRef; detail: string }
  /** A plug-in feature's write (src/sync/features/): `action` is its audit name (`note`, `project`). */
  | { type: "feature_written"; threatId: string; issue: IssueRef; action: string; detail: string };

/** What the connector learnt or decided about a threat's work. */
type OutcomeEvent =
  /** A create whose full body GitHub refused (422) was sent with a minimal body instead. */
  | { type: "created_minimal"; threatId: string; detail: string }
  | { type: "adopted"; threatId: string; issue: IssueRef }
  /** GitHub refused a step for good; `detail` is the action kind. */
  | { type: "refused"; threatId: string; detail: string }
  | { type: "failed"; threatId: string; detail: string }
  | { type: "rate_limited"; threatId: string }
  | { type: "deleted_issue"; threatId: string; issue: IssueRef }
  | { type: "transferred"; threatId: string; issue: IssueRef }
  /** A platform write answered 404: the threat left the API (its asset was removed). */
  | { type: "threat_gone"; threatId: string }
  /** The end a person typed for a risk acceptance was not taken (`detail` says why): the default applies. */
  | { type: "acceptance_date_ignored"; threatId: string; issue: IssueRef; detail: string };

/** What intake read from both sides (contract, "A cycle means: read ..."). */
type ReadEvent =
  /** A walk of one stream ended; `items` is every item it read, malformed ones included. */
  | { type: "stream_read"; stream: Stream; items: number }
  /** An item that failed to parse; read again (GET) next cycle when it has an id. */
  | { type: "item_malformed"; stream: Stream; id: string | null }
  /** Same `updated_at` and status as recorded: a re-delivery, not a change (spec, "Events"). */
  | { type: "threat_redelivered"; threatId: string }
  /** A new version that makes no work due. */
  | { type: "threat_unchanged"; threatId: string }
  /** A new version that makes work due (queued). */
  | { type: "threat_due"; threatId: string }
  | { type: "asset_removed"; assetId: string }
  | { type: "asset_restored"; assetId: string }
  /** One walk of an asset's related assets: `listed`, `none` (or 404), or `failed` (the issue goes without it). */
  | { type: "related_assets_read"; assetId: string; outcome: "listed" | "none" | "failed" }
  /** A repository's change list answered 304: nothing changed on GitHub. */
  | { type: "github_not_modified"; repo: string }
  /** A repository's change list was read; `issues` is how many it listed. */
  | { type: "github_issues_read"; repo: string; issues: number }
  /** A second issue carries the marker of a mapped (or otherwise linked) threat: left alone. */
  | { type: "duplicate_marker"; threatId: string; issue: IssueRef }
  /** A person closed or reopened an issue: verdict work is queued (contract, "GitHub → platform"). */
  | { type: "person_changed"; threatId: string; issue: IssueRef; state: "open" | "closed" };

/** Unfinished intents of an earlier run, resolved by reading GitHub (recover.ts). */
type RecoveryEvent =
  /** A create whose response was lost: the issue was found by its marker. */
  | { type: "intent_found"; threatId: string; intentId: string }
  /** Could not be resolved now: its threat waits, the rest goes on. */
  | { type: "intent_unresolved"; threatId: string; intentId: string }
  | { type: "intent_recovered"; threatId: string; intentId: string };

/** A cycle's bounds: observers that keep a per-cycle tally start afresh at `cycle_started`. */
type CycleEvent =
  | { type: "cycle_started"; at: number }
  /** The cycle caught an error; it resumes from the saved cursors next time. */
  | { type: "cycle_failed"; error: string }
  /** The cycle is over and its record committed; `at` and `durationMs` by the engine's clock. */
  | { type: "cycle_finished"; ok: boolean; at: number; durationMs: number };

export type EngineEvent = WriteEvent | OutcomeEvent | ReadEvent | RecoveryEvent | CycleEvent;
export type EngineEventType = EngineEvent["type"];

export type EngineObserver = (event: EngineEvent) => void;

/** Which side a write went to: GitHub's (paced by `github.write_budget`) or the platform's. */
export type WriteSide = "github" | "platform";

// A record over every write type: a write added to `WriteEvent` without its entry here (or an entry
// that is not a write) does not compile, so the audit log never misses a kind of write. Each names
// the side the write goes to; a feature's write says its own (`PLATFORM_FEATURE_ACTIONS`).
const WRITE_TYPES: { readonly [T in WriteEvent["type"]]: WriteSide | "feature" } = {
  created: "github",
  updated: "github",
  closed: "github",
  reopened: "github",
  commented: "github",
  linked: "platform",
  verdict_sent: "platform",
  group_written: "github",
  attached: "github",
  risk_accepted: "platform",
  expiry_warned: "github",
  risk_expired: "platform",
  recurred: "github",
  sla_breach_labeled: "github",
  milestone_created: "github",
  milestone_set: "github",
  feature_written: "feature",
};
const WRITES: ReadonlySet<EngineEventType> = new Set(Object.keys(WRITE_TYPES) as EngineEventType[]);

/** The features' audit actions that write to the platform (a note, `POST …/update-note`); the rest write to GitHub. */
const PLATFORM_FEATURE_ACTIONS: ReadonlySet<string> = new Set(["note"]);

/** Whether the event is a write the connector made to either side (contract, "Logs"). */
export function isWrite(event: EngineEvent): event is WriteEvent {
  return WRITES.has(event.type);
}

/**
 * The side a write went to: GitHub's writes are the ones `github.write_budget` paces, so a count of
 * them is read against that budget; the platform's (links, verdicts, notes) are counted apart.
 */
export function writeSide(event: WriteEvent): WriteSide {
  const side = WRITE_TYPES[event.type];
  if (side !== "feature") return side;
  return event.type === "feature_written" && PLATFORM_FEATURE_ACTIONS.has(event.action)
    ? "platform"
    : "github";
}

/**
 * The names under which the cycle summary (`lastCycle.counts`, `sync --json` `counters`) and
 * /metrics (`threatbridge_events_total{event}`) count events. External harnesses read them
 * (contract, `status` and `sync --json`): they never change.
 */
export type CounterName =
  | "issues_created"
  | "issues_updated"
  | "issues_state_changed"
  | "comments_created"
  | "platform_links"
  | "platform_verdicts"
  | "group_issues_written"
  | "sub_issues_attached"
  | "risk_acceptances"
  | "expiry_warnings"
  | "risk_expiries"
  | "recurrences"
  | "acceptance_dates_ignored"
  | "issues_created_minimal"
  | "issues_adopted"
  | "work_refused"
  | "work_failed"
  | "work_rate_limited"
  | "issues_deleted"
  | "issues_transferred"
  | "threats_gone_on_write"
  | `${Stream}_read`
  | `malformed_${Stream}`
  | "threats_redelivered"
  | "threats_unchanged"
  | "threats_due"
  | "assets_removed"
  | "assets_restored"
  | "related_asset_walks"
  | "github_not_modified"
  | "github_issues_read"
  | "duplicate_markers"
  | "people_changes"
  | "intents_resolved_found"
  | "intents_unresolved"
  | "intents_recovered"
  | "cycle_errors"
  | "sla_breach_labels"
  | "milestones_created"
  | "issues_milestoned"
  | "feature_writes";

/** What an event adds to which counter: one, or its item count (0 included). Cycle bounds are not counted. */
export function countedAs(event: EngineEvent): { name: CounterName; by: number } | null {
  const one = (name: CounterName): { name: CounterName; by: number } => ({ name, by: 1 });
  switch (event.type) {
    case "created":
      return one("issues_created");
    case "updated":
      return one("issues_updated");
    case "closed":
    case "reopened":
      return one("issues_state_changed");
    case "commented":
      return one("comments_created");
    case "linked":
      return one("platform_links");
    case "verdict_sent":
      return one("platform_verdicts");
    case "group_written":
      return one("group_issues_written");
    case "attached":
      return one("sub_issues_attached");
    case "risk_accepted":
      return one("risk_acceptances");
    case "expiry_warned":
      return one("expiry_warnings");
    case "risk_expired":
      return one("risk_expiries");
    case "recurred":
      return one("recurrences");
    case "acceptance_date_ignored":
      return one("acceptance_dates_ignored");
    case "sla_breach_labeled":
      return one("sla_breach_labels");
    case "milestone_created":
      return one("milestones_created");
    case "milestone_set":
      return one("issues_milestoned");
    case "feature_written":
      return one("feature_writes");
    case "created_minimal":
      return one("issues_created_minimal");
    case "adopted":
      return one("issues_adopted");
    case "refused":
      return one("work_refused");
    case "failed":
      return one("work_failed");
    case "rate_limited":
      return one("work_rate_limited");
    case "deleted_issue":
      return one("issues_deleted");
    case "transferred":
      return one("issues_transferred");
    case "threat_gone":
      return one("threats_gone_on_write");
    case "stream_read":
      return { name: `${event.stream}_read`, by: event.items };
    case "item_malformed":
      return one(`malformed_${event.stream}`);
    case "threat_redelivered":
      return one("threats_redelivered");
    case "threat_unchanged":
      return one("threats_unchanged");
    case "threat_due":
      return one("threats_due");
    case "asset_removed":
      return one("assets_removed");
    case "asset_restored":
      return one("assets_restored");
    case "related_assets_read":
      return one("related_asset_walks");
    case "github_not_modified":
      return one("github_not_modified");
    case "github_issues_read":
      return { name: "github_issues_read", by: event.issues };
    case "duplicate_marker":
      return one("duplicate_markers");
    case "person_changed":
      return one("people_changes");
    case "intent_found":
      return one("intents_resolved_found");
    case "intent_unresolved":
      return one("intents_unresolved");
    case "intent_recovered":
      return one("intents_recovered");
    case "cycle_failed":
      return one("cycle_errors");
    case "cycle_started":
    case "cycle_finished":
      return null;
  }
}

interface EventBus {
  emit: EngineObserver;
  /** Adds an observer for every event from now on; answers a function that removes it. */
  subscribe(observer: EngineObserver): () => void;
}

/** Calls every observer in order; one that throws must not fail the write just landed: it goes to `onError`. */
export function eventBus(
  initial: readonly EngineObserver[],
  onError: (error: unknown, event: EngineEvent) => void,
): EventBus {
  // Each subscription is its own entry: one observer subscribed twice is removed once at a time.
  let entries: ReadonlyArray<{ observe: EngineObserver }> = initial.map((observe) => ({ observe }));
  return {
    emit(event) {
      for (const { observe } of entries) {
        try {
          observe(event);
        } catch (error) {
          onError(error, event);
        }
      }
    },
    subscribe(observe) {
      const entry = { observe };
      // A new array each time: an observer that unsubscribes during an emit does not skip another.
      entries = [...entries, entry];
      return () => {
        entries = entries.filter((e) => e !== entry);
      };
    },
  };
}
