import type { IssueSnapshot } from "../../github/index.js";

/**
 * What the grouping keeps in memory for one process (built on first use, never stored): which
 * group each member threat is in, the compiled title template, and what was already said once.
 */
export interface GroupRuntime {
  title: (scope: object) => string;
  /** Things logged once per process (a repository without sub-issues, a full parent). */
  said: Set<string>;
  /**
   * The group issues found on GitHub by their label, per repository listed in this process,
   * by group id (groups/adopt-existing.ts): those not adopted yet, for groups the state may
   * learn of later in the process.
   */
  found: Map<string, Map<string, IssueSnapshot>>;
}
