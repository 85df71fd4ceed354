import type { NotesConfig, NoteSectionScope } from "../../../config/notes.js";
import { compileTemplate } from "../../../config/templates.js";
import { utcDay } from "../../../shared/duration.js";
import type { ThreatRecord } from "../../schema.js";
import type { FeatureAction } from "../../plan/plan.js";
import { addPending, notesData, notesRun, sayOnce } from "./runtime.js";
import { defaultBody, renderSection, sectionHash, utcMinute } from "./section.js";
import { NOTES, readSlice, type NotesSlice } from "./slice.js";
import { slaOf } from "../sla/slice.js";
import { commentDue } from "./to-github.js";
import type { FeatureContext } from "../types.js";

/**
 * The notes' plan (contract, "The conversation back": notes), from the record only: a write when the
 * section it calls for is not the one last written. The platform's echo of a write plans nothing.
 */

export interface NoteAction extends FeatureAction {
  feature: typeof NOTES;
  step: "write";
  repo: string;
  number: number;
  path: string;
  /** The whole section to write (markers included) and its hash. */
  section: string;
  hash: string;
}

export function sectionScope(record: ThreatRecord, slice: NotesSlice): NoteSectionScope | null {
  const issue = record.issue;
  if (!issue) return null;
  const sla = slaOf(record);
  const due = sla === undefined ? Number.NaN : Date.parse(sla.due);
  return {
    issue: {
      ref: `${issue.repo}#${issue.number}`,
      url: issue.url,
      state: issue.state,
      reason: issue.state === "closed" ? (slice.r ?? "") : "",
      assignees: slice.a ?? [],
      milestone: slice.m ?? "",
      due: Number.isFinite(due) ? utcDay(due) : "",
    },
    comments: (slice.c ?? []).map(([, author, at, text]) => ({ author, at: utcMinute(at), text })),
  };
}

const templates = new WeakMap<NotesConfig, (scope: object) => string>();

function bodyOf(config: NotesConfig, scope: NoteSectionScope): string {
  if (config.template === "") return defaultBody(scope);
  let render = templates.get(config);
  if (render === undefined) {
    render = compileTemplate(config.template, "notes.template");
    templates.set(config, render);
  }
  return render(scope);
}

export function desiredSection(config: NotesConfig, record: ThreatRecord): string | null {
  const slice = readSlice(record);
  if (slice.n === 1 || record.gone) return null;
  const scope = sectionScope(record, slice);
  return scope === null ? null : renderSection(bodyOf(config, scope), config.max_length);
}

/** The note write due for a threat, if any (pure: what the plan and its tests share). */
export function noteDue(
  config: NotesConfig,
  path: string,
  threatId: string,
  record: ThreatRecord,
): NoteAction | null {
  const section = desiredSection(config, record);
  const issue = record.issue;
  if (section === null || !issue) return null;
  const hash = sectionHash(section);
  if (readSlice(record).w === hash) return null;
  return {
    kind: "feature",
    feature: NOTES,
    step: "write",
    threatId,
    repo: issue.repo,
    number: issue.number,
    path,
    section,
    hash,
  };
}

/** Writes wait for this cycle's comment listing, at most one per threat per cycle; otherwise `pending`. */
export function planNotes(ctx: FeatureContext, threatId: string, record: ThreatRecord): FeatureAction[] {
  const config = ctx.config.notes;
  if (!config) return [];
  const write = planNoteWrite(ctx, config, threatId, record);
  return config.to_github ? [...write, ...planNoteComment(ctx, threatId, record)] : write;
}

/** The analyst's comment waits for this cycle's intake (its newest text), at most one per cycle. */
function planNoteComment(ctx: FeatureContext, threatId: string, record: ThreatRecord): FeatureAction[] {
  const due = commentDue(threatId, record);
  if (due === null) return [];
  const run = notesRun(ctx);
  if (!run.ready || run.commented.has(threatId)) {
    addPending(ctx, threatId);
    return [];
  }
  run.commented.add(threatId);
  return [due];
}

function planNoteWrite(
  ctx: FeatureContext,
  config: NotesConfig,
  threatId: string,
  record: ThreatRecord,
): FeatureAction[] {
  let due: NoteAction | null;
  try {
    due = noteDue(config, ctx.config.fields.threat.note, threatId, record);
  } catch (error) {
    // A template that fails on this threat's facts: said once, no note for it (the issue goes on).
    const issue = record.issue ? `${record.issue.repo}#${record.issue.number}` : undefined;
    sayOnce(
      ctx,
      "template",
      { threat_id: threatId, ...(issue ? { issue } : {}), err: error },
      "the notes template failed on this threat; no note written for the threats it fails on (said once)",
    );
    return [];
  }
  if (due === null) return [];
  const run = notesRun(ctx);
  // After a lost state, the repository's comments are listed before its sections are compared.
  const listed =
    config.comments === 0 || ctx.conversation === undefined || due.repo.toLowerCase() in notesData(ctx).since;
  if (!run.ready || run.written.has(threatId) || !listed) {
    addPending(ctx, threatId);
    return [];
  }
  // At most once per threat per cycle: a failure, or a change later in the cycle, waits for the next.
  run.written.add(threatId);
  return [due];
}
