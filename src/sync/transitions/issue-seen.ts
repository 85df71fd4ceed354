import type { IssueRecord, PersonChange, QueueEntry, ThreatRecord } from "../schema.js";
import { parseMarkerFound } from "../../shared/index.js";
import { parseExternalId } from "../render/normalize.js";

/** Pure transitions of what GitHub shows: the record after an issue seen, or a person's change to queue. */

/** What these transitions read of an issue GitHub answered (plain data). */
export interface IssueSeen {
  repo: string;
  number: number;
  url: string;
  state: "open" | "closed";
  stateReason: string | null;
  /** Its labels (a "not planned" close with the acceptance label is a risk acceptance). */
  labels?: readonly string[];
  /** Its body, or the hidden lines of it: the marker's number says which of the threat's issues it is. */
  body?: string;
  /** Its milestone's title (an SLA's weekly milestone is found again after a lost state file). */
  milestone?: string | null;
}

type IssueSeenResult =
  /** A copy carrying the marker of a threat whose issue a person deleted: left alone. */
  | { kind: "ignored" }
  /** The state maps no issue for the threat: this one is adopted (a lost state file; never a second issue). */
  | { kind: "adopt"; record: ThreatRecord }
  /** Another issue than the threat's (the state's mapping, or the platform's link) carries its marker. */
  | { kind: "duplicate"; by: "mapping" | "link"; mapped: string }
  /** The threat's own issue: it may show a person's change (`personChangeSeen`). */
  | { kind: "mapped" };

/**
 * The record of an adopted issue's threat: everything the state knows of the threat stays (its
 * link, the features' data...), only the issue is new. Which of the threat's issues it is (its
 * marker's number) the features note as the caller adopts it (features/registry.ts `markerAdopted`).
 */
function adoptedRecord(record: ThreatRecord | undefined, issue: IssueRecord): ThreatRecord {
  if (record) return { ...record, issue };
  return { status: "unknown", severity: 0, assetId: null, updatedAt: "", issue };
}

/**
 * `asRecord`: the issue as the state would record it (its revision hash read from its body);
 * `mappedNumber`: the marker number of the issue the record maps (features/registry.ts `markerNumberOf`).
 */
export function applyIssueSeen(
  record: ThreatRecord | undefined,
  issue: IssueSeen,
  asRecord: IssueRecord,
  mappedNumber = 1,
): IssueSeenResult {
  const known = record?.issue;
  if (known) {
    if (known.repo === issue.repo && known.number === issue.number) return { kind: "mapped" };
    // An earlier issue of the threat (a lower marker number): it stays closed, and is no duplicate.
    if ((parseMarkerFound(issue.body)?.occurrence ?? 1) < mappedNumber) return { kind: "ignored" };
    return { kind: "duplicate", by: "mapping", mapped: `${known.repo}#${known.number}` };
  }
  // A person deleted the issue this threat had; a copy carrying its marker is not adopted.
  if (record?.deletedIssue) return { kind: "ignored" };
  // The platform's link, when it names another issue, decides which one is the threat's.
  const linked = record?.link !== undefined ? parseExternalId(record.link) : null;
  if (
    linked &&
    record?.link !== undefined &&
    (linked.repo !== issue.repo || linked.number !== issue.number)
  ) {
    return { kind: "duplicate", by: "link", mapped: record.link };
  }
  // What the features keep of the issue (its marker's number, the hidden lines) is noted by intake's adopt.
  return { kind: "adopt", record: adoptedRecord(record, asRecord) };
}

type PersonCandidate =
  /** The issue shows what the connector wrote (or there is no issue): nothing to do. */
  | { kind: "none" }
  /** A person undid their own change before the connector acted on it: it is forgotten. */
  | { kind: "undone"; entry: QueueEntry }
  /** The issue shows a state the connector did not write: a person's, unless GitHub says our App did it. */
  | { kind: "candidate" };

/** `writing`: the states the connector's unfinished intents write to this issue (never a person's). */
export function personChangeSeen(
  record: ThreatRecord | undefined,
  entry: QueueEntry | undefined,
  issue: Pick<IssueSeen, "state">,
  writing: readonly ("open" | "closed")[],
): PersonCandidate {
  const known = record?.issue;
  if (!known) return { kind: "none" };
  if (issue.state === known.state) {
    if (entry?.person) {
      const { person: _undone, ...rest } = entry;
      return { kind: "undone", entry: rest };
    }
    return { kind: "none" };
  }
  return writing.includes(issue.state) ? { kind: "none" } : { kind: "candidate" };
}

/** Who changed an issue's state, as far as GitHub can say (null: it cannot). */
interface ChangedBy {
  login: string;
  viaApp: boolean;
  bySelf: boolean;
}

type PersonChangeResult =
  /** Our GitHub App did it (a write whose outcome was not recorded): the record follows, no verdict. */
  | { kind: "by_app"; record: ThreatRecord }
  /** A person's close or reopen: queued as verdict work (README, "Conflicts": the person wins). */
  | { kind: "person"; person: PersonChange };

/** `now`: when it was seen (ISO). Who did it only names the person in the verdict's note. */
export function personChange(
  record: ThreatRecord & { issue: IssueRecord },
  issue: IssueSeen,
  who: ChangedBy | null,
  now: string,
): PersonChangeResult {
  if (who?.bySelf && who.viaApp) {
    return { kind: "by_app", record: { ...record, issue: { ...record.issue, state: issue.state } } };
  }
  return {
    kind: "person",
    person: {
      event: issue.state === "closed" ? "closed" : "reopened",
      reason: issue.state === "closed" ? issue.stateReason : null,
      login: who?.login ?? "unknown",
      repo: issue.repo,
      number: issue.number,
      url: issue.url,
      seenAt: now,
      // Kept only where they decide something: a "not planned" close may be a risk acceptance.
      ...(issue.state === "closed" && issue.stateReason === "not_planned" && issue.labels
        ? { labels: [...issue.labels] }
        : {}),
    },
  };
}
