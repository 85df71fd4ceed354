import { checkpoint, remember } from "../context.js";
import { githubLink, toThreatView } from "../intake/normalize.js";
import { dropPerson, updateThreat } from "../records/state-updates.js";
import { verdictSent } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { GONE, ifStillThere, setIssueState } from "./write-helpers.js";

/** A person's close or reopen sent to the platform as a verdict (contract: people's actions first). */
export const verdictAction: ActionModule<ActionOf<"verdict">> = {
  kind: "verdict",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({ detail: `status=${action.status}` }),
  async run(ctx, action) {
    const id = action.threatId;
    const threat = await ifStillThere(ctx, id, () =>
      ctx.platform.setStatus(id, action.status, action.note || undefined),
    );
    const issueState = action.person.event === "closed" ? "closed" : "open";
    if (threat === GONE) {
      // The threat left the API (its asset was removed) since the person acted: no verdict can
      // be given; the issue stays as the person left it.
      setIssueState(ctx, id, issueState);
      dropPerson(ctx, id);
      await checkpoint(ctx);
      return;
    }
    ctx.emit({
      type: "verdict_sent",
      threatId: id,
      issue: { repo: action.person.repo, number: action.person.number },
      detail: action.status,
    });
    // The response's status is the recalculated effective status (spec, PATCH rule 3).
    updateThreat(ctx, id, (r) =>
      verdictSent(r, { status: threat.status, updatedAt: threat.updated_at }, issueState),
    );
    remember(ctx, id, { view: toThreatView(threat, ctx.config.fields.threat), link: githubLink(threat) });
    dropPerson(ctx, id);
    await checkpoint(ctx);
  },
};
