import type { Clock } from "../shared/clock.js";
import { StandInError } from "./errors.js";
import type { StandInEventKind } from "./types.js";

/** Who performs a change: a login, and whether it acts through the GitHub App (installation token). */
export interface Actor {
  login: string;
  viaApp: boolean;
}

export type StateReason = "completed" | "not_planned" | "reopened";

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string | null;
  isDefault: boolean;
}

export interface IssueRecord {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: StateReason | null;
  /** Label names, in the order they were added. */
  labels: string[];
  assignees: string[];
  user: string;
  viaApp: boolean;
  isPullRequest: boolean;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  closedBy: string | null;
  /** A person locked the conversation: comments are refused (403), as GitHub does for the connector. */
  locked?: boolean;
  /** A person deleted the issue: it answers 410 and leaves every list. */
  deleted?: boolean;
  /** A person transferred the issue: it answers 301 to its new place and leaves every list here. */
  movedTo?: { owner: string; name: string; number: number };
  /** The milestone's number in this repository, when the issue has one. */
  milestone?: number;
  /** The issue type's name, when the issue has one (issue types belong to the owner). */
  type?: string;
  /** The `id` of the parent issue, when this issue is a sub-issue (at most one parent, as on GitHub). */
  parentId?: number;
  /** The `id`s of its sub-issues, in the order they were added. */
  subIssueIds?: number[];
}

export interface MilestoneRecord {
  id: number;
  number: number;
  title: string;
  description: string | null;
  state: "open" | "closed";
  /** The due date as GitHub keeps it: a calendar date (YYYY-MM-DD) in US Pacific time. */
  dueDate: string | null;
  creator: string;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface CommentRecord {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  viaApp: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface EventRecord {
  id: number;
  issueNumber: number;
  event: StandInEventKind;
  actor: Actor;
  createdAt: number;
  stateReason?: StateReason | null;
  label?: { name: string; color: string };
  rename?: { from: string; to: string };
}

export interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  createdAt: number;
  labels: Map<string, LabelRecord>;
  /** Issues and pull requests share one number sequence, as on GitHub; index = number - 1. */
  issues: IssueRecord[];
  comments: Map<number, CommentRecord[]>;
  events: Map<number, EventRecord[]>;
  /** Archived: read-only, every write answers 403. */
  archived?: boolean;
  /** Milestones; index = number - 1. */
  milestones?: MilestoneRecord[];
}

interface IssueChange {
  title?: string;
  body?: string | null;
  state?: "open" | "closed";
  /** `undefined`: not given; with `state: "closed"` it defaults to `completed`. */
  stateReason?: StateReason | null;
  labels?: string[];
  assignees?: string[];
  /** A milestone number, or null to remove it. */
  milestone?: number | null;
  /** An issue type's name, or null to remove it. */
  type?: string | null;
}

export interface NewIssue {
  title: string;
  body: string | null;
  labels: string[];
  assignees: string[];
  isPullRequest: boolean;
  milestone?: number | undefined;
  type?: string | undefined;
}

/** New labels get GitHub's neutral grey unless created with a colour. */
const DEFAULT_LABEL_COLOR = "ededed";

export type Store = ReturnType<typeof createStore>;

/** The in-memory state of every repository; one per running stand-in (no module-level state). */
export function createStore(clock: Clock) {
  const repos = new Map<string, RepoRecord>();
  /** Issues by their global `id`: the sub-issue routes name a child by id, not by number. */
  const byId = new Map<number, { r: RepoRecord; issue: IssueRecord }>();
  let nextId = 1000;
  const newId = (): number => ++nextId;

  function repo(owner: string, name: string): RepoRecord {
    // GitHub treats owner and repository names case-insensitively.
    const key = `${owner}/${name}`.toLowerCase();
    let found = repos.get(key);
    if (!found) {
      found = {
        id: newId(),
        owner,
        name,
        createdAt: clock.now(),
        labels: new Map(),
        issues: [],
        comments: new Map(),
        events: new Map(),
      };
      repos.set(key, found);
    }
    return found;
  }

  function repoByFullName(fullName: string): RepoRecord {
    const [owner, name, ...rest] = fullName.split("/");
    if (!owner || !name || rest.length > 0) {
      throw new StandInError("bad_repository", `repository must be "owner/name", got "${fullName}"`);
    }
    return repo(owner, name);
  }

  function findIssue(r: RepoRecord, number: number): IssueRecord | undefined {
    return Number.isInteger(number) && number >= 1 ? r.issues[number - 1] : undefined;
  }

  function mustFindIssue(r: RepoRecord, number: number): IssueRecord {
    const issue = findIssue(r, number);
    if (!issue) throw new StandInError("no_such_issue", `no issue ${r.owner}/${r.name}#${number}`);
    return issue;
  }

  function ensureLabel(
    r: RepoRecord,
    name: string,
    color = DEFAULT_LABEL_COLOR,
    description: string | null = null,
  ): LabelRecord {
    const key = name.toLowerCase();
    let label = r.labels.get(key);
    if (!label) {
      label = { id: newId(), name, color, description, isDefault: false };
      r.labels.set(key, label);
    }
    return label;
  }

  function findLabel(r: RepoRecord, name: string): LabelRecord | undefined {
    return r.labels.get(name.toLowerCase());
  }

  function record(r: RepoRecord, ev: Omit<EventRecord, "id" | "createdAt">): void {
    const list = r.events.get(ev.issueNumber) ?? [];
    list.push({ ...ev, id: newId(), createdAt: clock.now() });
    r.events.set(ev.issueNumber, list);
  }

  /** Replaces the label set, recording `labeled`/`unlabeled` events for the difference. */
  function setLabels(r: RepoRecord, issue: IssueRecord, names: string[], actor: Actor): void {
    const wanted: string[] = [];
    for (const name of names) {
      const label = ensureLabel(r, name);
      if (!wanted.some((w) => w.toLowerCase() === label.name.toLowerCase())) wanted.push(label.name);
    }
    const had = issue.labels;
    for (const name of had) {
      if (!wanted.includes(name)) {
        const label = ensureLabel(r, name);
        record(r, { issueNumber: issue.number, event: "unlabeled", actor, label: labelRef(label) });
      }
    }
    for (const name of wanted) {
      if (!had.includes(name)) {
        const label = ensureLabel(r, name);
        record(r, { issueNumber: issue.number, event: "labeled", actor, label: labelRef(label) });
      }
    }
    issue.labels = [...had.filter((n) => wanted.includes(n)), ...wanted.filter((n) => !had.includes(n))];
  }

  function createIssue(r: RepoRecord, input: NewIssue, actor: Actor): IssueRecord {
    const now = clock.now();
    const issue: IssueRecord = {
      id: newId(),
      number: r.issues.length + 1,
      title: input.title,
      body: input.body,
      state: "open",
      stateReason: null,
      labels: [],
      assignees: [...new Set(input.assignees)],
      user: actor.login,
      viaApp: actor.viaApp,
      isPullRequest: input.isPullRequest,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      closedBy: null,
      ...(input.milestone === undefined ? {} : { milestone: input.milestone }),
      ...(input.type === undefined ? {} : { type: input.type }),
    };
    r.issues.push(issue);
    byId.set(issue.id, { r, issue });
    setLabels(r, issue, input.labels, actor);
    return issue;
  }

  function updateIssue(r: RepoRecord, issue: IssueRecord, change: IssueChange, actor: Actor): void {
    const before = JSON.stringify(issue);
    if (change.title !== undefined && change.title !== issue.title) {
      record(r, {
        issueNumber: issue.number,
        event: "renamed",
        actor,
        rename: { from: issue.title, to: change.title },
      });
      issue.title = change.title;
    }
    if (change.body !== undefined) issue.body = change.body;
    if (change.labels !== undefined) setLabels(r, issue, change.labels, actor);
    if (change.assignees !== undefined) issue.assignees = [...new Set(change.assignees)];
    if (change.milestone === null) delete issue.milestone;
    else if (change.milestone !== undefined) issue.milestone = change.milestone;
    if (change.type === null) delete issue.type;
    else if (change.type !== undefined) issue.type = change.type;
    applyState(r, issue, change, actor);
    if (JSON.stringify(issue) !== before) issue.updatedAt = clock.now();
  }

  function applyState(r: RepoRecord, issue: IssueRecord, change: IssueChange, actor: Actor): void {
    if (change.state === "closed" && issue.state === "open") {
      const reason = change.stateReason ?? "completed";
      issue.state = "closed";
      issue.stateReason = reason;
      issue.closedAt = clock.now();
      issue.closedBy = actor.login;
      record(r, { issueNumber: issue.number, event: "closed", actor, stateReason: reason });
    } else if (change.state === "open" && issue.state === "closed") {
      issue.state = "open";
      issue.stateReason = "reopened";
      issue.closedAt = null;
      issue.closedBy = null;
      record(r, { issueNumber: issue.number, event: "reopened", actor, stateReason: "reopened" });
    } else if (change.stateReason !== undefined && issue.state === "closed" && change.stateReason !== null) {
      // GitHub lets the close reason of a closed issue be changed without reopening it.
      issue.stateReason = change.stateReason;
    }
  }

  function addComment(r: RepoRecord, issue: IssueRecord, body: string, actor: Actor): CommentRecord {
    const now = clock.now();
    const comment: CommentRecord = {
      id: newId(),
      issueNumber: issue.number,
      body,
      user: actor.login,
      viaApp: actor.viaApp,
      createdAt: now,
      updatedAt: now,
    };
    const list = r.comments.get(issue.number) ?? [];
    list.push(comment);
    r.comments.set(issue.number, list);
    // A new comment makes the issue show up again in `since` polls, as on GitHub.
    issue.updatedAt = now;
    return comment;
  }

  /** Moves an issue (with its comments) to another repository, as a person's transfer does. */
  function transferIssue(from: RepoRecord, issue: IssueRecord, to: RepoRecord, actor: Actor): IssueRecord {
    const moved = createIssue(
      to,
      {
        title: issue.title,
        body: issue.body,
        labels: issue.labels,
        assignees: issue.assignees,
        isPullRequest: false,
      },
      actor,
    );
    if (issue.state === "closed") {
      updateIssue(to, moved, { state: "closed", stateReason: issue.stateReason ?? "completed" }, actor);
    }
    for (const c of from.comments.get(issue.number) ?? [])
      addComment(to, moved, c.body, { login: c.user, viaApp: c.viaApp });
    issue.movedTo = { owner: to.owner, name: to.name, number: moved.number };
    issue.updatedAt = clock.now();
    return moved;
  }

  return {
    repo,
    repoByFullName,
    transferIssue,
    findIssue,
    mustFindIssue,
    issueById: (id: number): { r: RepoRecord; issue: IssueRecord } | undefined => byId.get(id),
    newId,
    now: (): number => clock.now(),
    ensureLabel,
    findLabel,
    setLabels,
    createIssue,
    updateIssue,
    addComment,
    commentsOf: (r: RepoRecord, number: number): CommentRecord[] => r.comments.get(number) ?? [],
    eventsOf: (r: RepoRecord, number: number): EventRecord[] => r.events.get(number) ?? [],
  };
}

function labelRef(label: LabelRecord): { name: string; color: string } {
  return { name: label.name, color: label.color };
}
