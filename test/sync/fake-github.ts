import type { RequestCount } from "../../src/shared/index.js";
import {
  createWriteBudget,
  hasMarker,
  parseMarker,
  type GitHubGateway,
  type IssueSnapshot,
} from "../../src/github/index.js";
import type { LastStateChange } from "../../src/github/gateway.js";
import { FailingFake } from "./fake-platform.js";

/**
 * An in-memory GitHub behind the GitHubGateway interface. Counts writes and rate-limit points the
 * way GitHub does (a 304 is free), lets a test act as a person, and can fail one numbered call
 * before or after it takes effect (a lost response).
 */

interface FakeIssue extends IssueSnapshot {
  comments: string[];
  events: Array<{ event: "closed" | "reopened"; login: string; viaApp: boolean }>;
}

export class FakeGitHub extends FailingFake implements GitHubGateway {
  readonly repos = new Map<string, FakeIssue[]>();
  private tick = 0;
  private version = 0;
  private readonly lastAnswer = new Map<string, number>();
  points = 0;
  readonly budget = createWriteBudget({
    perMinute: 0,
    perHour: 0,
    minIntervalMs: 0,
    clock: { now: () => Date.now() },
    sleep: async () => {},
  });

  private issueIds = 0;

  constructor(readonly self = "threatbridge[bot]") {
    super();
  }

  private stamp(): string {
    this.tick += 1;
    this.version += 1;
    return new Date(Date.UTC(2026, 0, 1) + this.tick * 1000).toISOString();
  }

  issues(repo: string): FakeIssue[] {
    const list = this.repos.get(repo) ?? [];
    this.repos.set(repo, list);
    return list;
  }

  private find(repo: string, number: number): FakeIssue | undefined {
    return this.issues(repo).find((i) => i.number === number);
  }

  private snapshot(issue: FakeIssue): IssueSnapshot {
    const { comments: _c, events: _e, ...rest } = issue;
    return { ...rest, labels: [...rest.labels], assignees: [...rest.assignees] };
  }

  listChangedIssues(
    repo: string,
    since: string | null,
  ): Promise<{ notModified: boolean; issues: IssueSnapshot[]; consistent: boolean }> {
    return this.call(() => {
      const key = repo; // like the gateway: one fixed query URL per repository
      if (this.lastAnswer.get(key) === this.version)
        return { notModified: true, issues: [], consistent: true };
      this.points += 1;
      this.lastAnswer.set(key, this.version);
      const issues = this.issues(repo)
        .filter((i) => i.labels.includes("threatbridge") && (since === null || i.updatedAt >= since))
        .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
        .map((i) => this.snapshot(i));
      return { notModified: false, issues, consistent: true };
    });
  }

  findIssueByMarker(
    repo: string,
    threatId: string,
    _createdSince?: string,
    occurrence = 1,
  ): Promise<IssueSnapshot | null> {
    return this.call(() => {
      this.points += 1;
      // Like the gateway: that occurrence's marker only (a recurrence's issue is not the first's).
      const found = this.issues(repo).find((i) => hasMarker(i.body, threatId, occurrence));
      return found ? this.snapshot(found) : null;
    });
  }

  getIssue(repo: string, number: number): Promise<IssueSnapshot | null> {
    return this.call(() => {
      this.points += 1;
      const issue = this.find(repo, number);
      return issue ? this.snapshot(issue) : null;
    });
  }

  createIssue(
    repo: string,
    input: { title: string; body: string; labels: string[]; assignees: string[] },
  ): Promise<IssueSnapshot> {
    return this.call(() => {
      this.points += 1;
      const list = this.issues(repo);
      const number = list.length + 1;
      // GitHub's ids are global and unlike the per-repository numbers.
      this.issueIds += 1;
      const issue: FakeIssue = {
        repo,
        number,
        id: 5_000_000 + this.issueIds,
        url: `https://github.test/${repo}/issues/${number}`,
        state: "open",
        stateReason: null,
        title: input.title,
        body: input.body,
        labels: [...input.labels],
        assignees: [...input.assignees],
        updatedAt: this.stamp(),
        threatId: parseMarker(input.body),
        comments: [],
        events: [],
      };
      list.push(issue);
      return this.snapshot(issue);
    }, true);
  }

  updateIssue(
    repo: string,
    number: number,
    patch: {
      title?: string;
      body?: string;
      labels?: string[];
      state?: "open" | "closed";
      stateReason?: "completed" | "not_planned" | "reopened";
    },
  ): Promise<IssueSnapshot> {
    return this.call(() => {
      this.points += 1;
      const issue = this.find(repo, number);
      if (!issue) throw new Error("404");
      if (patch.title !== undefined) issue.title = patch.title;
      if (patch.body !== undefined) {
        issue.body = patch.body;
        issue.threatId = parseMarker(patch.body);
      }
      if (patch.labels !== undefined) issue.labels = [...patch.labels];
      if (patch.state !== undefined && patch.state !== issue.state) {
        issue.state = patch.state;
        issue.events.push({
          event: patch.state === "closed" ? "closed" : "reopened",
          login: this.self,
          viaApp: false,
        });
      }
      if (patch.stateReason !== undefined) issue.stateReason = patch.stateReason;
      issue.updatedAt = this.stamp();
      return this.snapshot(issue);
    }, true);
  }

  addLabels(repo: string, number: number, labels: string[]): Promise<string[]> {
    return this.call(() => {
      this.points += 1;
      const issue = this.find(repo, number);
      if (!issue) throw new Error("404");
      for (const l of labels)
        if (!issue.labels.some((x) => x.toLowerCase() === l.toLowerCase())) issue.labels.push(l);
      issue.updatedAt = this.stamp();
      return [...issue.labels];
    }, true);
  }

  removeLabel(repo: string, number: number, label: string): Promise<void> {
    return this.call(() => {
      this.points += 1;
      const issue = this.find(repo, number);
      if (!issue) throw new Error("404");
      issue.labels = issue.labels.filter((x) => x.toLowerCase() !== label.toLowerCase());
      issue.updatedAt = this.stamp();
    }, true);
  }

  createComment(repo: string, number: number, body: string): Promise<{ id: number }> {
    return this.call(() => {
      this.points += 1;
      const issue = this.find(repo, number);
      if (!issue) throw new Error("404");
      issue.comments.push(body);
      issue.updatedAt = this.stamp();
      return { id: issue.comments.length };
    }, true);
  }

  listComments(repo: string, number: number): Promise<Array<{ id: number; body: string }>> {
    return this.call(() => {
      this.points += 1;
      return (this.find(repo, number)?.comments ?? []).map((body, i) => ({ id: i + 1, body }));
    });
  }

  lastStateChange(repo: string, number: number): Promise<LastStateChange | null> {
    return this.call(() => {
      this.points += 1;
      const event = this.find(repo, number)?.events.at(-1);
      if (!event) return null;
      return {
        event: event.event,
        login: event.login,
        viaApp: event.viaApp,
        bySelf: event.login === this.self,
        stateReason: null,
      };
    });
  }

  /** One lookup per issue, as a GitHub whose answers never name who closed. */
  async lastStateChanges(issues: readonly IssueSnapshot[]): Promise<Array<LastStateChange | null>> {
    const out: Array<LastStateChange | null> = [];
    for (const issue of issues)
      out.push(await this.lastStateChange(issue.repo, issue.number).catch(() => null));
    return out;
  }

  async whoAmI(): Promise<string> {
    return this.self;
  }

  stats(): {
    requests: number;
    rateLimitPoints: number;
    notModified: number;
    writes: number;
    secondaryLimitHits: number;
    retries: number;
    byOutcome: RequestCount[];
  } {
    return {
      // This fake does not tell its calls apart by method or status.
      byOutcome: [],
      requests: this.calls,
      rateLimitPoints: this.points,
      notModified: 0,
      writes: this.writes,
      secondaryLimitHits: 0,
      retries: 0,
    };
  }

  exportEtags(): [] {
    return [];
  }

  /**
   * A new process holds only the ETags it persisted, and this fake persists none: its first read
   * of each change list answers in full, as GitHub would to a request without `If-None-Match`.
   */
  importEtags(): void {
    this.lastAnswer.clear();
  }

  /** A person closes or reopens an issue on GitHub. */
  personSets(
    repo: string,
    number: number,
    state: "open" | "closed",
    login: string,
    reason: "completed" | "not_planned" | null = "completed",
  ): void {
    const issue = this.find(repo, number);
    if (!issue) throw new Error(`no issue ${repo}#${number}`);
    issue.state = state;
    issue.stateReason = state === "closed" ? reason : "reopened";
    issue.events.push({ event: state === "closed" ? "closed" : "reopened", login, viaApp: false });
    issue.updatedAt = this.stamp();
  }
}
