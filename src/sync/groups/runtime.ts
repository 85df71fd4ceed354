/**
 * What the grouping keeps in memory for one process (built on first use, never stored): which
 * group each member threat is in, the compiled title template, and what was already said once.
 */
export interface GroupRuntime {
  title: (scope: object) => string;
  /** Things logged once per process (a repository without sub-issues, a full parent). */
  said: Set<string>;
}
