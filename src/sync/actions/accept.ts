import { checkpoint } from "../context.js";
import { dropPerson } from "../records/state-updates.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { setIssueState } from "./write-helpers.js";

/** A person's change the platform already agrees with: only the record follows it, nothing is sent. */
export const acceptAction: ActionModule<ActionOf<"accept">> = {
  kind: "accept",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  describe: (action) => ({ detail: `state=${action.state}` }),
  async run(ctx, action) {
    setIssueState(ctx, action.threatId, action.state);
    dropPerson(ctx, action.threatId);
    await checkpoint(ctx);
  },
};
