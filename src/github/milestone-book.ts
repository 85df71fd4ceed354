import type { GitHubWorkflow } from "./gateway.js";

/**
 * The numbers of the milestones by title, per repository, for one process (the SLA's weekly ones): each repository's
 * milestones are listed once, and one that is missing is made on demand (GitHub's create is
 * idempotent by title: a lost answer or a person's milestone of the same title is found, not
 * doubled). A repository without milestones (404, 403, 410) is said once, through `onUnavailable`,
 * and asked no more.
 */
export class MilestoneBook {
  /** repo → title → number; null: the repository has no milestones. */
  private readonly repos = new Map<string, Map<string, number> | null>();

  constructor(private readonly onUnavailable: (repo: string, status: number, message: string) => void) {}

  /** The milestone's number (and whether it was made now), or null where the repository has none. */
  async numberFor(
    workflow: GitHubWorkflow,
    repo: string,
    title: string,
    dueOn: string,
  ): Promise<{ number: number; created: boolean } | null> {
    let known = this.repos.get(repo);
    if (known === undefined) {
      const list = await workflow.listMilestones(repo);
      if (!list.available) return this.unavailable(repo, list.status, list.message);
      known = new Map(list.milestones.map((m) => [m.title, m.number]));
      this.repos.set(repo, known);
    }
    if (known === null) return null;
    const number = known.get(title);
    if (number !== undefined) return { number, created: false };
    const made = await workflow.createMilestone(repo, { title, dueOn });
    if (!made.available) return this.unavailable(repo, made.status, made.message);
    known.set(title, made.milestone.number);
    return { number: made.milestone.number, created: !made.existed };
  }

  private unavailable(repo: string, status: number, message: string): null {
    if (this.repos.get(repo) !== null) this.onUnavailable(repo, status, message);
    this.repos.set(repo, null);
    return null;
  }
}
