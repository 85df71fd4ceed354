import type { IssueRecord, ThreatRecord } from "../schema.js";

/** Pure transitions of outcomes: what the connector's writes, or the platform's answers, make of a record. */

/** The verdict's PATCH answered: its status is the recalculated effective status (spec, PATCH rule 3). */
export function verdictSent(
  record: ThreatRecord,
  answer: { status: string; updatedAt: string },
  issueState: "open" | "closed",
): ThreatRecord {
  return {
    ...record,
    status: answer.status,
    updatedAt: answer.updatedAt,
    ...(record.issue ? { issue: { ...record.issue, state: issueState } } : {}),
  };
}

/** The issue's state follows what the connector (or a person it accepted) made it. */
export function issueStateIs(record: ThreatRecord, state: "open" | "closed"): ThreatRecord {
  return record.issue ? { ...record, issue: { ...record.issue, state } } : record;
}

/** A state change landed; `removal`: closed for the asset's removal, so a person's reopen wins. */
export function issueStateWritten(
  record: ThreatRecord,
  written: { state: "open" | "closed"; hash?: string | undefined; removal: boolean },
): ThreatRecord {
  const { hash } = written;
  return {
    ...record,
    ...(record.issue
      ? { issue: { ...record.issue, state: written.state, ...(hash !== undefined ? { hash } : {}) } }
      : {}),
    ...(written.removal ? { closedForRemoval: true } : {}),
  };
}

/** A content PATCH landed: the issue shows this hash now. */
export function contentWritten(record: ThreatRecord, hash: string): ThreatRecord {
  return record.issue ? { ...record, issue: { ...record.issue, hash } } : record;
}

/**
 * The issue the platform's link names was taken over (adopted): the threat is mapped to it. Which
 * of the threat's issues it is (its marker's number) the features note (registry `markerAdopted`).
 */
export function issueAdopted(record: ThreatRecord, issue: IssueRecord): ThreatRecord {
  return { ...record, issue, link: `${issue.repo}#${issue.number}` };
}

/** A person transferred the issue: the record follows it from the issue as known before the write. */
export function issueTransferred(
  record: ThreatRecord,
  known: IssueRecord,
  to: { repo: string; number: number; url: string },
): ThreatRecord {
  return { ...record, issue: { ...known, repo: to.repo, number: to.number, url: to.url } };
}

/** The threat is back on the stream: a later removal closes its issue again. */
export function removalCloseCleared(record: ThreatRecord): ThreatRecord {
  if (!record.closedForRemoval) return record;
  const { closedForRemoval: _back, ...rest } = record;
  return rest;
}

/** The platform answered 404: the threat left the API (its asset was removed; spec, GET threat). */
export function threatGone(record: ThreatRecord): ThreatRecord {
  return { ...record, gone: true };
}

/** A single read (GET) of the threat: its status and version. */
export function threatRead(record: ThreatRecord, read: { status: string; updatedAt: string }): ThreatRecord {
  return { ...record, status: read.status, updatedAt: read.updatedAt };
}

/** The plan settled: a step GitHub refused earlier is no longer the threat's last word. */
export function refusalCleared(record: ThreatRecord): ThreatRecord {
  if (!record.refused) return record;
  const { refused: _cleared, ...rest } = record;
  return rest;
}

/** A person deleted the threat's issue (404/410): it is no longer managed. */
export function issueDeleted(
  record: ThreatRecord,
  deleted: { repo: string; number: number; at: string },
): ThreatRecord {
  const { issue: _deleted, ...rest } = record;
  return { ...rest, deletedIssue: deleted };
}

/** GitHub refused a step for good: recorded and shown by `status`. */
export function refused(
  record: ThreatRecord,
  refusal: { action: string; reason: string; at: string },
): ThreatRecord {
  return { ...record, refused: refusal };
}

/** The create landed, or recovery found its issue by marker: the threat is mapped to it. */
export function issueCreated(record: ThreatRecord, issue: IssueRecord): ThreatRecord {
  const { deletedIssue: _recreated, ...rest } = record;
  return { ...rest, issue };
}

/** The platform holds the link to the issue now (PUT external-references answered 204). */
export function linkWritten(record: ThreatRecord, externalId: string): ThreatRecord {
  return { ...record, link: externalId };
}

/** The version is forgotten so the next read plans the threat again. */
export function versionForgotten(record: ThreatRecord): ThreatRecord {
  return record.updatedAt === "" ? record : { ...record, updatedAt: "" };
}
