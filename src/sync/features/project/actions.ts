import type { ProjectFieldChange } from "../../../github/projects.js";
import type { Intent } from "../../schema.js";
import { QueueClass, type ActionModule, type SendIo, type Settlement } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { subjectKind } from "../../records/subject.js";
import type { AddItemAction, ProjectAction, SetFieldsAction } from "./plan.js";
import type { ProjectRuntime } from "./runtime.js";
import { FEATURE, valueHash, type GroupItem } from "./slice.js";
import { itemChange } from "./item-change.js";
import { fieldValue } from "./values.js";

/** What an add answered: the item, the feature off (no such project or API), or the issue gone. */
export type AddOutcome = { kind: "added"; itemId: number } | { kind: "off" } | { kind: "issue_gone" };

/** What a PATCH of the fields answered; `decided`: the fields whose value was written or left unset. */
export type FieldsOutcome =
  | { kind: "updated"; written: string[]; unset: string[] }
  | { kind: "refused"; message: string; unset: string[] }
  | { kind: "item_gone" }
  | { kind: "off" };

function runtimeOf(io: SendIo): ProjectRuntime {
  return io.runtimeOf(FEATURE) as ProjectRuntime;
}

const written = (action: ProjectAction, detail: string) => ({
  type: "feature_written" as const,
  threatId: action.threatId,
  issue: { repo: action.repo, number: action.number },
  action: "project",
  detail,
});

/** Adds the issue to the project under an intent: sent once, a lost answer found by listing the items. */
export const addItemModule: ActionModule<AddItemAction, AddOutcome> = {
  kind: "feature",
  // The last class there is: after people's verdicts, closes and reopens and new issues.
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ action: "project", detail: "add the issue to the project" }),
  intent: (action) => ({
    fields: {
      kind: "feature",
      feature: FEATURE,
      threatId: action.threatId,
      repo: action.repo,
      number: action.number,
      ...(action.issueId === undefined ? {} : { data: String(action.issueId) }),
    },
    onFailure: "feature-recover",
    settleLazily: false,
  }),
  async send(action, io, _intent: Intent | null) {
    const runtime = runtimeOf(io);
    const resolved = await runtime.resolve();
    if (resolved === null) return { kind: "off" };
    // An issue recorded before its id was kept: read once (then the slice records the item).
    const issueId = action.issueId ?? (await io.github.getIssue(action.repo, action.number))?.id ?? undefined;
    if (issueId === undefined || issueId === null) return { kind: "issue_gone" };
    const added = await runtime.conversation.addProjectItem(resolved.project, issueId);
    if (!added.available) {
      runtime.turnOff(added.status, added.message);
      return { kind: "off" };
    }
    return { kind: "added", itemId: added.item.id };
  },
  // A dry run's item: an id no item has; its fields are planned next, as after a real add.
  asAsked: (_action, io) => Promise.resolve({ kind: "added", itemId: io.newIssue }),
  settle(action, outcome): Settlement {
    if (outcome.kind === "issue_gone") {
      // A group's issue gone: the group's own next write meets the refusal; no item is asked for it.
      if (subjectKind(action.threatId) === "group")
        return { ...itemChange(action, () => ({ i: 0, v: {} })), events: [], commit: "checkpoint" };
      return { deleted: { repo: action.repo, number: action.number }, events: [], commit: "checkpoint" };
    }
    if (outcome.kind !== "added") return { events: [], commit: "none" };
    const itemId = outcome.itemId;
    return {
      ...itemChange(action, () => ({ i: itemId, v: {} })),
      events: [written(action, `added as item ${outcome.itemId}`)],
      commit: "checkpoint",
    };
  },
};

/** Every changed field in one idempotent PATCH; a field or option the project lacks is left unset. */
export const setFieldsModule: ActionModule<SetFieldsAction, FieldsOutcome> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({ action: "project", detail: `set ${Object.keys(action.values).join(", ")}` }),
  async send(action, io) {
    const runtime = runtimeOf(io);
    const resolved = await runtime.resolve();
    if (resolved === null) return { kind: "off" };
    const changes: ProjectFieldChange[] = [];
    const setNames: string[] = [];
    const unset: string[] = [];
    for (const [name, text] of Object.entries(action.values)) {
      const field = resolved.fields.get(name);
      const decision = field ? fieldValue(field, text) : null;
      if (field && decision?.set) {
        changes.push({ fieldId: field.id, value: decision.value });
        setNames.push(name);
        continue;
      }
      unset.push(name);
      if (decision?.set === false && decision.why !== "empty")
        runtime.sayOnce(
          `value:${name}:${text}`,
          {
            threat_id: action.threatId,
            issue: `${action.repo}#${action.number}`,
            field: name,
            value: text,
            why: decision.why,
          },
          "a project field's value has no match on the board (no such option, or not a date or number): the field is left unset",
        );
    }
    if (changes.length === 0) return { kind: "updated", written: [], unset };
    const answer = await runtime.conversation.updateProjectItemFields(
      resolved.project,
      action.itemId,
      changes,
    );
    if (!answer.available) {
      // 404: a person removed the item, unless the whole project went (then off).
      return answer.status === 404
        ? { kind: "item_gone" }
        : (runtime.turnOff(answer.status, answer.message), { kind: "off" });
    }
    if (answer.outcome === "refused") return { kind: "refused", message: answer.message, unset };
    return { kind: "updated", written: setNames, unset };
  },
  asAsked: (action) => Promise.resolve({ kind: "updated", written: Object.keys(action.values), unset: [] }),
  settle(action, outcome): Settlement {
    if (outcome.kind === "off") return { events: [], commit: "none" };
    const update = itemChange(action, (item): GroupItem | undefined => {
      if (item === undefined || item.i !== action.itemId) return undefined;
      if (outcome.kind === "item_gone") return { i: 0, v: {} };
      const v = { ...item.v };
      for (const [name, text] of Object.entries(action.values)) v[name] = valueHash(text);
      return { ...item, v };
    });
    if (outcome.kind === "item_gone")
      return {
        ...update,
        events: [],
        notice: {
          level: "info",
          fields: { threat_id: action.threatId, issue: `${action.repo}#${action.number}` },
          message: "a person removed the issue's item from the project: it is not added again",
        },
        commit: "checkpoint",
      };
    if (outcome.kind === "refused")
      return {
        ...update,
        events: [],
        notice: {
          level: "warn",
          once: `project_refused:${Object.keys(action.values).join(",")}`,
          fields: {
            threat_id: action.threatId,
            issue: `${action.repo}#${action.number}`,
            detail: outcome.message,
          },
          message:
            "GitHub refused a project field's value: the fields are left as they are until the values change",
        },
        commit: "checkpoint",
      };
    return {
      ...update,
      events: outcome.written.length === 0 ? [] : [written(action, `set ${outcome.written.join(", ")}`)],
      commit: "checkpoint",
    };
  },
};

export const projectModules = {
  add: addItemModule,
  fields: setFieldsModule,
} as unknown as Readonly<Record<string, ActionModule<FeatureAction, unknown>>>;
