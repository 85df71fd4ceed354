import type { IssueSnapshot } from "../../github/index.js";
import type { Threat } from "../../platform/index.js";
import { withRevision, type EngineEvent } from "../../shared/index.js";
import type { GroupIssue, GroupRecord } from "../schema.js";
import { parentChanged, parentMade, singleChanged, singleMade, withParent } from "../transitions/group.js";
import { createdAsAsked, issueAsAsked, statusAsAsked } from "./as-asked.js";
import { personLogin } from "./write-helpers.js";
import {
  QueueClass,
  type ActionDescription,
  type ActionModule,
  type ActionOf,
  type AskedIo,
  type EngineAction,
  type IntentSpec,
  type SendIo,
} from "./types.js";

/**
 * A group's own issue (contract, "Groups"): `parent` mode's parent of its members' issues, or
 * `single` mode's one issue standing for them. One family of modules, the mode as data: its create
 * under an intent resolved by the group's marker (never a second issue, whatever crashes), its
 * checklist's update, and its state following its members. Besides them, what only one mode has:
 * a parent's "checklist only" note, and a single-mode issue's person's change sent as verdicts.
 */

/** What a group's issue is in either mode, as far as the shared writes change it. */
type IssueShape = Pick<GroupIssue, "number" | "id" | "url" | "state" | "hash">;

/** A change of a group's issue that keeps whatever else its mode records of it. */
type IssueChange = <I extends IssueShape>(issue: I) => I;

/** What tells the two modes apart: where the group's record keeps its issue, and what a create brings. */
interface GroupMode {
  /** The dry run's line for a create. */
  readonly created: string;
  made(group: GroupRecord, repo: string, issue: IssueSnapshot, hash: string): GroupRecord;
  /** The issue in `repo` changed; a group with none there is left as it is. */
  changed(group: GroupRecord, repo: string, change: IssueChange): GroupRecord;
  /** Whether the members' platform links name the issue: then they are queued once it is made. */
  readonly linksMembers: boolean;
}

const PARENT_MODE: GroupMode = {
  created: "create parent",
  made: (group, repo, issue, hash) => withParent(group, repo, parentMade(issue, hash)),
  changed: (group, repo, change) => parentChanged(group, repo, change),
  linksMembers: false,
};

const SINGLE_MODE: GroupMode = {
  created: "create group issue",
  made: (group, repo, issue, hash) => singleChanged(group, repo, () => singleMade(issue, hash)),
  changed: (group, repo, change) => singleChanged(group, repo, (i) => (i === undefined ? i : change(i))),
  linksMembers: true,
};

interface IssueRef {
  groupId: string;
  repo: string;
  number: number;
}

/** The `group_written` event of a write to a group's issue (`detail`: create, update, close, reopen). */
export function groupWritten(action: IssueRef, detail: string): EngineEvent {
  return {
    type: "group_written",
    threatId: action.groupId,
    issue: { repo: action.repo, number: action.number },
    detail,
  };
}

type NewIssue = {
  groupId: string;
  repo: string;
  title: string;
  body: string;
  labels: string[];
  hash: string;
};

/** A group's issue is created under an intent resolved by its marker: never a second one. */
function createIntent(action: NewIssue): IntentSpec {
  return {
    fields: { kind: "group_create", threatId: action.groupId, repo: action.repo },
    onFailure: "find-group-by-marker",
    settleLazily: false,
  };
}

/** What a group's issue is created with (its body carries the rendering's hash). */
function issueFields(action: NewIssue) {
  return {
    title: action.title,
    body: withRevision(action.body, action.hash),
    labels: action.labels,
    assignees: [],
  };
}

function createModule<A extends EngineAction & NewIssue>(
  kind: A["kind"],
  mode: GroupMode,
): ActionModule<A, IssueSnapshot> {
  return {
    kind,
    priority: () => QueueClass.create,
    spendsGitHubBudget: () => true,
    mappingRepair: false,
    describe: (action: A) => ({
      action: "group",
      title: action.title,
      labels: action.labels,
      detail: mode.created,
    }),
    intent: createIntent,
    send: (action: A, io: SendIo) => io.github.createIssue(action.repo, issueFields(action)),
    // A dry run's issue, as its create would answer: what follows it is planned on its number.
    asAsked: (action: A, io: AskedIo) =>
      Promise.resolve(createdAsAsked(io, null, { repo: action.repo, ...issueFields(action) })),
    settle: (action: A, issue: IssueSnapshot) => ({
      group: { id: action.groupId, change: (g) => mode.made(g, action.repo, issue, action.hash) },
      ...(mode.linksMembers ? { linkMembers: { groupId: action.groupId, repo: action.repo } } : {}),
      events: [groupWritten({ ...action, number: issue.number }, "create")],
      commit: "none",
    }),
  };
}

type ContentWrite = IssueRef & { title: string; body: string; hash: string };

function updateModule<A extends EngineAction & ContentWrite>(
  kind: A["kind"],
  mode: GroupMode,
): ActionModule<A, IssueSnapshot> {
  return {
    kind,
    priority: () => QueueClass.other,
    spendsGitHubBudget: () => true,
    mappingRepair: false,
    describe: (action: A) => ({
      action: "group",
      title: action.title,
      detail: "update checklist",
    }),
    // The same content twice is the same issue: no intent.
    send: (action: A, io: SendIo) =>
      io.github.updateIssue(action.repo, action.number, {
        title: action.title,
        body: withRevision(action.body, action.hash),
      }),
    asAsked: (action: A, io: AskedIo) =>
      Promise.resolve(
        issueAsAsked(io, null, {
          repo: action.repo,
          number: action.number,
          id: null,
          url: "",
          state: "open",
        }),
      ),
    settle: (action: A, issue: IssueSnapshot) => ({
      group: {
        id: action.groupId,
        change: (g) =>
          mode.changed(g, action.repo, (i) => ({
            ...i,
            hash: action.hash,
            ...(issue.id !== null ? { id: issue.id } : {}),
          })),
      },
      events: [groupWritten(action, "update")],
      commit: "checkpoint",
    }),
  };
}

type StateWrite = IssueRef & { target: "open" | "closed" };

function describeState(action: StateWrite): ActionDescription {
  return { action: "group", detail: action.target === "closed" ? "close (completed)" : "reopen" };
}

function stateModule<A extends EngineAction & StateWrite>(
  kind: A["kind"],
  mode: GroupMode,
): ActionModule<A, null> {
  return {
    kind,
    priority: () => QueueClass.other,
    spendsGitHubBudget: () => true,
    mappingRepair: false,
    describe: describeState,
    // Written only when the members' target changes, and the same state twice is the same issue.
    // A group's issue closes as `completed` with its members, and reopens with one.
    async send(action: A, io: SendIo) {
      await io.github.updateIssue(action.repo, action.number, {
        state: action.target,
        stateReason: action.target === "closed" ? "completed" : "reopened",
      });
      return null;
    },
    asAsked: () => Promise.resolve(null),
    settle: (action: A) => ({
      group: {
        id: action.groupId,
        change: (g) => mode.changed(g, action.repo, (i) => ({ ...i, state: action.target })),
      },
      events: [groupWritten(action, action.target === "closed" ? "close" : "reopen")],
      commit: "checkpoint",
    }),
  };
}

export const groupCreateAction = createModule<ActionOf<"group_create">>("group_create", PARENT_MODE);
export const groupUpdateAction = updateModule<ActionOf<"group_update">>("group_update", PARENT_MODE);
export const groupStateAction = stateModule<ActionOf<"group_state">>("group_state", PARENT_MODE);
export const singleCreateAction = createModule<ActionOf<"single_create">>("single_create", SINGLE_MODE);
export const singleUpdateAction = updateModule<ActionOf<"single_update">>("single_update", SINGLE_MODE);
export const singleStateAction = stateModule<ActionOf<"single_state">>("single_state", SINGLE_MODE);

/** No write: the members beyond GitHub's 100 stay in the parent's checklist, said once. */
export const groupFullAction: ActionModule<ActionOf<"group_full">, null> = {
  kind: "group_full",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({
    action: "group",
    detail: `${action.beyond} more members than a parent holds: checklist only`,
  }),
  send: () => Promise.resolve(null),
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: {
      id: action.groupId,
      change: (g) => parentChanged(g, action.repo, (p) => ({ ...p, checklistOnly: "full" })),
    },
    notice: {
      level: "warn",
      once: `full:${action.groupId}:${action.repo}`,
      fields: { group: action.groupId, issue: `${action.repo}#${action.number}`, beyond: action.beyond },
      message: "a group has more members than a parent may hold (100); the rest are in its checklist only",
    },
    events: [],
    commit: "checkpoint",
  }),
};

/** The member's status as the platform answered its verdict, and when (a later, older version is stale). */
function withVerdict(group: GroupRecord, threatId: string, threat: Threat | null): GroupRecord {
  const member = group.members[threatId];
  if (!member || threat === null) return group;
  const answered = { ...member, status: threat.status, verdictAt: threat.updated_at };
  return { ...group, members: { ...group.members, [threatId]: answered } };
}

/** The single-mode issue in `repo` changed, where the group has one. */
function singleIssueChanged(
  group: GroupRecord,
  repo: string,
  change: (i: GroupIssue) => GroupIssue,
): GroupRecord {
  return singleChanged(group, repo, (i) => (i === undefined ? i : change(i)));
}

/** One member's verdict of a person's close or reopen of the group's issue (a repeat finds the platform agreeing). */
export const singleVerdictAction: ActionModule<ActionOf<"single_verdict">, Threat | null> = {
  kind: "single_verdict",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) =>
    action.status === null ? { hidden: true } : { action: "verdict", detail: action.status },
  send: (action, io) =>
    action.status === null
      ? Promise.resolve(null)
      : io.platform.setStatus(action.threatId, action.status, action.note),
  async asAsked(action, io) {
    if (action.status === null) return null;
    const answered = await statusAsAsked(io, action.threatId, action.status, action.note);
    return answered.gone ? null : answered.answer;
  },
  settle: (action, threat) => ({
    group: {
      id: action.groupId,
      change: (g) =>
        singleIssueChanged(withVerdict(g, action.threatId, threat), action.repo, (i) =>
          i.person
            ? {
                ...i,
                person: { ...i.person, pending: i.person.pending.filter((id) => id !== action.threatId) },
              }
            : i,
        ),
    },
    events:
      action.status === null
        ? []
        : [
            {
              type: "verdict_sent",
              threatId: action.threatId,
              issue: { repo: action.repo, number: action.number },
              detail: action.status,
              answered: threat?.status ?? null,
              by: personLogin(action.login),
            },
          ],
    commit: "checkpoint",
  }),
};

/** No write: every verdict of a person's change was sent, and the issue's state is the person's. */
export const singlePersonDoneAction: ActionModule<ActionOf<"single_person_done">, null> = {
  kind: "single_person_done",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: () => ({ hidden: true }),
  send: () => Promise.resolve(null),
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    group: {
      id: action.groupId,
      change: (g) =>
        singleIssueChanged(g, action.repo, (current) => {
          const { person, closedByPerson: _before, ...issue } = current;
          if (!person || person.pending.length > 0) return current;
          const state = person.event === "closed" ? "closed" : "open";
          return person.event === "closed"
            ? { ...issue, state, closedByPerson: person.targets }
            : { ...issue, state };
        }),
    },
    events: [],
    commit: "checkpoint",
  }),
};
