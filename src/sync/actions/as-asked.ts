import type { IssueSnapshot } from "../../github/index.js";
import type { Threat } from "../../platform/index.js";
import type { AskedIo } from "./types.js";

/** What several modules' `asAsked` share: a new issue as its create would answer, a threat as a PATCH would. */

/** An issue a write would make or leave, as far as the engine keeps what GitHub answers. */
export function issueAsAsked(
  io: Pick<AskedIo, "nowMs">,
  threatId: string | null,
  fields: Pick<IssueSnapshot, "repo" | "number" | "id" | "url" | "state"> &
    Partial<Pick<IssueSnapshot, "title" | "body" | "labels" | "assignees">>,
): IssueSnapshot {
  return {
    stateReason: null,
    title: "",
    body: "",
    labels: [],
    assignees: [],
    ...fields,
    updatedAt: new Date(io.nowMs).toISOString(),
    threatId,
  };
}

/** A new issue's create as answered: the number and id no GitHub issue has, open. */
export function createdAsAsked(
  io: Pick<AskedIo, "nowMs" | "newIssue">,
  threatId: string | null,
  fields: Pick<IssueSnapshot, "repo" | "title" | "body" | "labels" | "assignees">,
): IssueSnapshot {
  return issueAsAsked(io, threatId, {
    ...fields,
    number: io.newIssue,
    id: io.newIssue,
    url: "",
    state: "open",
  });
}

/** The platform's answer to a status PATCH: the threat as it reads now with the status asked, or `gone`. */
export async function statusAsAsked(
  io: Pick<AskedIo, "platform" | "nowMs">,
  threatId: string,
  status: string,
  statusNote?: string,
): Promise<{ gone: false; answer: Threat } | { gone: true }> {
  const threat = await io.platform.getThreat(threatId);
  if (threat === null) return { gone: true };
  const answer: Threat = {
    ...threat,
    status,
    ...(statusNote === undefined ? {} : { status_note: statusNote }),
    updated_at: new Date(io.nowMs).toISOString(),
  };
  return { gone: false, answer };
}
