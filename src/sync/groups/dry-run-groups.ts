import type { DryRunSink } from "../../shared/dry-run-record.js";
import type { GroupAction } from "./plan-groups.js";
import type { SingleAction } from "./plan-single.js";
import type { RetireAction } from "./retire-plan.js";

/**
 * How a dry run lists a group action (`sync --dry-run`): `group` for a parent's create, update
 * or state change, `attach` for a member attached as a sub-issue; the CLI counts them by action.
 */
export function printGroupAction(sink: DryRunSink, a: GroupAction): void {
  switch (a.kind) {
    case "group_create":
      sink.print({
        action: "group",
        threat_id: a.groupId,
        repository: a.repo,
        title: a.title,
        labels: a.labels,
        detail: "create parent",
      });
      return;
    case "group_update":
      sink.print({
        action: "group",
        threat_id: a.groupId,
        repository: a.repo,
        issue: a.number,
        title: a.title,
        detail: "update checklist",
      });
      return;
    case "group_state":
      sink.print({
        action: "group",
        threat_id: a.groupId,
        repository: a.repo,
        issue: a.number,
        detail: a.target === "closed" ? "close (completed)" : "reopen",
      });
      return;
    case "member_id":
      sink.print({
        action: "attach",
        threat_id: a.threatId,
        repository: a.repo,
        issue: a.number,
        detail: `to ${a.groupId} (after one read of its id)`,
      });
      return;
    case "attach":
      sink.print({
        action: "attach",
        threat_id: a.threatId,
        repository: a.repo,
        issue: a.childNumber,
        detail: `to ${a.repo}#${a.parentNumber}`,
      });
      return;
    case "group_full":
      sink.print({
        action: "group",
        threat_id: a.groupId,
        repository: a.repo,
        issue: a.number,
        detail: `${a.beyond} more members than a parent holds: checklist only`,
      });
      return;
  }
}

/** How a dry run lists a single-mode group issue's step: `group` for the issue, `verdict` per member. */
export function printSingleAction(sink: DryRunSink, a: SingleAction): void {
  const where = { threat_id: a.groupId, repository: a.repo };
  switch (a.kind) {
    case "single_create":
      sink.print({
        action: "group",
        ...where,
        title: a.title,
        labels: a.labels,
        detail: "create group issue",
      });
      return;
    case "single_update":
      sink.print({ action: "group", ...where, issue: a.number, title: a.title, detail: "update checklist" });
      return;
    case "single_state":
      sink.print({
        action: "group",
        ...where,
        issue: a.number,
        detail: a.target === "closed" ? "close (completed)" : "reopen",
      });
      return;
    case "single_verdict":
      if (a.status !== null)
        sink.print({
          action: "verdict",
          threat_id: a.threatId,
          repository: a.repo,
          issue: a.number,
          detail: a.status,
        });
      return;
    case "single_person_done":
      return;
  }
}

/** A retirement of a group's issue after `grouping` changed (groups/retire-plan.ts). */
export function printRetireAction(sink: DryRunSink, a: RetireAction): void {
  sink.print({
    action: a.kind === "group_retire" ? "group" : "comment",
    threat_id: a.groupId,
    repository: a.repo,
    issue: a.number,
    detail:
      a.kind === "group_retire"
        ? "close (not planned): grouping changed"
        : "comment: grouping changed, names the issues carrying its threats",
  });
}
