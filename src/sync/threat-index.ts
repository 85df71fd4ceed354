import type { ThreatRecord } from "../state/index.js";
import type { ThreatRecords } from "./threat-records.js";

/**
 * What the engine looks threats up by, kept current by state-updates.ts as records change, so that
 * no cycle scans every stored threat (issue 7: a cycle's cost follows its work, not the state's
 * size). Built once per process from the records, in the same pass that checks each of them.
 */
export class ThreatIndex {
  /** asset id → ids of its threats. */
  readonly byAsset = new Map<string, Set<string>>();
  /** `owner/name#N` (repository lower-cased) → the threat whose issue it is. */
  readonly byIssue = new Map<string, string>();
  /** Repository as the records name it → how many mapped issues it holds. */
  private readonly repos = new Map<string, number>();

  static build(threats: ThreatRecords): ThreatIndex {
    const index = new ThreatIndex();
    threats.scan((id, assetId, issue) =>
      index.update(id, undefined, { assetId, ...(issue ? { issue } : {}) }),
    );
    return index;
  }

  /** The repositories that hold at least one mapped issue. */
  repositories(): string[] {
    return [...this.repos.keys()];
  }

  update(id: string, before: Indexed | undefined, after: Indexed | undefined): void {
    const assetBefore = before?.assetId ?? null;
    const assetAfter = after?.assetId ?? null;
    if (assetBefore !== assetAfter && assetBefore !== null) {
      const ids = this.byAsset.get(assetBefore);
      ids?.delete(id);
      if (ids?.size === 0) this.byAsset.delete(assetBefore);
    }
    if (assetAfter !== null) {
      const ids = this.byAsset.get(assetAfter);
      if (ids === undefined) this.byAsset.set(assetAfter, new Set([id]));
      else ids.add(id);
    }
    const issueBefore = before?.issue;
    const issueAfter = after?.issue;
    if (issueBefore?.repo === issueAfter?.repo && issueBefore?.number === issueAfter?.number) return;
    if (issueBefore) {
      const key = issueKey(issueBefore.repo, issueBefore.number);
      if (this.byIssue.get(key) === id) this.byIssue.delete(key);
      const left = (this.repos.get(issueBefore.repo) ?? 1) - 1;
      if (left > 0) this.repos.set(issueBefore.repo, left);
      else this.repos.delete(issueBefore.repo);
    }
    if (issueAfter) {
      this.byIssue.set(issueKey(issueAfter.repo, issueAfter.number), id);
      this.repos.set(issueAfter.repo, (this.repos.get(issueAfter.repo) ?? 0) + 1);
    }
  }
}

/** What the index reads of a record. */
type Indexed = Pick<ThreatRecord, "assetId"> & { issue?: { repo: string; number: number } | undefined };

export function issueKey(repo: string, number: number): string {
  return `${repo.toLowerCase()}#${number}`;
}
