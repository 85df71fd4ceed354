import { LINK_SYSTEM } from "../render/normalize.js";
import { linkWritten, threatGone } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { unlessGone } from "./write-helpers.js";

/** The platform's `github` external reference is made to name the threat's issue (contract). */
export const linkAction: ActionModule<ActionOf<"link">, { gone: boolean }> = {
  kind: "link",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  describe: () => ({}),
  send: (action, io) =>
    unlessGone(() =>
      io.platform.putExternalReference(action.threatId, LINK_SYSTEM, {
        external_id: action.externalId,
        url: action.url,
      }),
    ),
  settle(action, { gone }) {
    const id = action.threatId;
    if (gone)
      return {
        record: threatGone,
        events: [{ type: "threat_gone", threatId: id }],
        cache: "forget",
        commit: "none",
      };
    return {
      record: (r) => linkWritten(r, action.externalId),
      events: [{ type: "linked", threatId: id, issue: { repo: action.repo, number: action.number } }],
      cache: { link: { externalId: action.externalId, url: action.url } },
      commit: "checkpoint",
    };
  },
};
