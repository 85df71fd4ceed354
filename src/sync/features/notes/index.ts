import type { Config } from "../../../config/index.js";
import type { Intent } from "../../schema.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import { threatGone } from "../../transitions/outcome.js";
import type {
  Feature,
  FeatureCheckDeps,
  FeatureCheckResult,
  FeatureCounts,
  FeatureContext,
} from "../types.js";
import { notesBeforeDrain, notesOnIssue, notesOnVersion } from "./intake.js";
import { planNotes } from "./plan.js";
import { findSection, noteOf, sectionHash } from "./section.js";
import { changeSlice, NOTES } from "./slice.js";
import { ABSENT, COMMENT_DUE, notesTagger, WRITTEN } from "./tagger.js";
import { noteWriteAction } from "./write-action.js";
import { isCommentIntent, noteCommentAction, recoverComment } from "./comment-action.js";
import { noteIssueFound, renderBodyNote } from "./to-github.js";

/** Notes (contract, "The conversation back": notes) as a plug-in. */

/**
 * A write intent left by a crash: it landed when the note holds the intent's section. Notes apply
 * asynchronously, so one not shown yet is sent again (at most one identical extra note).
 */
async function recoverNote(ctx: FeatureContext, intent: Intent): Promise<boolean> {
  if (isCommentIntent(intent)) return recoverComment(ctx, intent);
  const threat = await ctx.platform.getThreat(intent.threatId);
  if (threat === null) {
    ctx.updateThreat(intent.threatId, threatGone);
    return true;
  }
  const note = noteOf(threat, ctx.config.fields.threat.note);
  const hash = intent.data;
  if (note === undefined || hash === undefined) return false;
  const section = findSection(note, hash);
  if (!section || sectionHash(section.text) !== hash) return false;
  ctx.updateThreat(intent.threatId, (r) => changeSlice(r, (s) => ({ ...s, w: hash })));
  return true;
}

/** `check`: whether the first threats read carry a note at `fields.threat.note`. */
async function checkNotes(config: Config, deps: FeatureCheckDeps): Promise<FeatureCheckResult[]> {
  const path = config.fields.threat.note;
  for await (const page of deps.platform.streamThreats(null)) {
    const threats = page.items.flatMap((item) => (item.ok ? [item.value] : []));
    if (threats.length === 0) continue;
    const carrying = threats.filter((t) => noteOf(t, path) !== undefined).length;
    if (carrying > 0)
      return [
        {
          check: "notes",
          status: "pass",
          detail: `threat reads carry a note at fields.threat.note (${path})`,
        },
      ];
    return [
      {
        check: "notes",
        status: "warn",
        detail: `threat reads carry no note at fields.threat.note (${path}): no note will be written`,
        hint: "set fields.threat.note to where your platform's threat reads carry the note",
      },
    ];
  }
  return [{ check: "notes", status: "skip", detail: "no threat to read a note from yet" }];
}

/** `status`: counted from the slices' tags, so no record is built. */
function countNotes(threats: ThreatRecords): FeatureCounts {
  const tally = threats.tallySlices(NOTES, notesTagger);
  let written = 0;
  let absent = 0;
  let commentsDue = 0;
  tally.forEach((n, tag) => {
    if ((tag & WRITTEN) !== 0) written += n;
    if ((tag & ABSENT) !== 0) absent += n;
    if ((tag & COMMENT_DUE) !== 0) commentsDue += n;
  });
  return commentsDue === 0 ? { written, absent } : { written, absent, commentsDue };
}

function notesLine(counts: FeatureCounts): string {
  const { written = 0, absent = 0, commentsDue = 0 } = counts;
  const due = commentsDue === 0 ? "" : `, ${commentsDue} analysts' notes wait for their comment on GitHub`;
  return `notes:      ${written} threats' notes hold the GitHub section, ${absent} without a note on reads${due}`;
}

export const notes: Feature = {
  name: NOTES,
  configKey: "notes",
  record: { onThreatVersion: notesOnVersion, onIssueChange: notesOnIssue, onIssueFound: noteIssueFound },
  plan: { threat: planNotes, render: renderBodyNote },
  actions: { modules: { write: noteWriteAction, comment: noteCommentAction }, recover: recoverNote },
  beforeDrain: notesBeforeDrain,
  check: checkNotes,
  status: { counts: countNotes, line: notesLine, tagger: notesTagger },
};
