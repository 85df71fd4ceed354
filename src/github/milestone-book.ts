import type { WriteOptions } from "./issue-writes.js";
import type { MilestoneCreated, MilestoneList, NewMilestone } from "./milestones.js";

/** The milestones API the book reads and writes through (the gateway's). */
export interface MilestoneApi {
  listMilestones(repo: string): Promise<MilestoneList>;
  createMilestone(repo: string, input: NewMilestone, opts?: WriteOptions): Promise<MilestoneCreated>;
}

/** Milestones by title per repository for one process: listed once, made on demand (idempotent by title). */
export class MilestoneBook {
  /** repo → title → number; null: the repository has no milestones. */
  private readonly repos = new Map<string, Map<string, number> | null>();

  constructor(private readonly onUnavailable: (repo: string, status: number, message: string) => void) {}

  /** The repository's milestones by title (listed once), or null where it has none. */
  private async known(workflow: MilestoneApi, repo: string): Promise<Map<string, number> | null> {
    const known = this.repos.get(repo);
    if (known !== undefined) return known;
    const list = await workflow.listMilestones(repo);
    if (!list.available) return this.unavailable(repo, list.status, list.message);
    const titles = new Map(list.milestones.map((m) => [m.title, m.number]));
    this.repos.set(repo, titles);
    return titles;
  }

  /** Whether the repository has a milestone of that title (a read only); null where it has no milestones. */
  async has(workflow: MilestoneApi, repo: string, title: string): Promise<boolean | null> {
    const known = await this.known(workflow, repo);
    return known === null ? null : known.has(title);
  }

  /** The milestone's number (and whether it was made now), or null where the repository has none. */
  async numberFor(
    workflow: MilestoneApi,
    repo: string,
    title: string,
    dueOn: string,
  ): Promise<{ number: number; created: boolean } | null> {
    const known = await this.known(workflow, repo);
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
