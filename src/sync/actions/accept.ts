import { issueStateIs } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";

/** A person's change the platform already agrees with: only the record follows it, nothing is sent. */
export const acceptAction: ActionModule<ActionOf<"accept">, null> = {
  kind: "accept",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  // Nothing is sent: a dry run does not list it (it would read as the contract's risk `accept`).
  describe: (action) => ({ hidden: true, detail: `state=${action.state}` }),
  send: () => Promise.resolve(null),
  settle: (action) => ({
    record: (r) => issueStateIs(r, action.state),
    events: [],
    finished: "person",
    commit: "checkpoint",
  }),
};
