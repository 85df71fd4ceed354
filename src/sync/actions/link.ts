import { checkpoint } from "../context.js";
import { LINK_SYSTEM } from "../intake/normalize.js";
import { updateThreat } from "../records/state-updates.js";
import { linkWritten } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { GONE, ifStillThere } from "./write-helpers.js";

/** The platform's `github` external reference is made to name the threat's issue (contract). */
export const linkAction: ActionModule<ActionOf<"link">> = {
  kind: "link",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  describe: () => ({}),
  async run(ctx, action) {
    const linked = await ifStillThere(ctx, action.threatId, () =>
      ctx.platform.putExternalReference(action.threatId, LINK_SYSTEM, {
        external_id: action.externalId,
        url: action.url,
      }),
    );
    if (linked === GONE) return;
    updateThreat(ctx, action.threatId, (r) => linkWritten(r, action.externalId));
    const cached = ctx.cache.get(action.threatId);
    if (cached) cached.link = { externalId: action.externalId, url: action.url };
    ctx.emit({
      type: "linked",
      threatId: action.threatId,
      issue: { repo: action.repo, number: action.number },
    });
    await checkpoint(ctx);
  },
};
