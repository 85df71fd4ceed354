import type { IssueSnapshot } from "../../github/index.js";
import type { IssueRecord } from "../schema.js";
import { parseRevision } from "../../shared/index.js";

/** What the state remembers of an issue; `hash` from the revision line when not given. */
export function issueRecord(issue: IssueSnapshot, hash?: string): IssueRecord {
  return {
    repo: issue.repo,
    number: issue.number,
    url: issue.url,
    state: issue.state,
    hash: hash ?? parseRevision(issue.body) ?? "",
    ...(issue.id !== null && issue.id > 0 ? { id: issue.id } : {}),
  };
}
