import type { SyncContext } from "../context.js";
import { nowIso, persist } from "../context.js";
import { allRepos } from "../plan/policy.js";
import { enqueue } from "../records/queue.js";
import { putGroup, setMeta, updateThreat } from "../records/state-updates.js";
import type { FeatureContext } from "./types.js";

const MADE = new WeakMap<SyncContext, FeatureContext>();

/** What the features see of this engine (features/types.ts `FeatureContext`), made once per engine. */
export function featureContext(ctx: SyncContext): FeatureContext {
  const known = MADE.get(ctx);
  if (known) return known;
  const said = new Set<string>();
  const made: FeatureContext = {
    config: ctx.config,
    logger: ctx.logger,
    clock: ctx.clock,
    platform: ctx.platform,
    github: ctx.github,
    conversation: ctx.conversation,
    workflow: ctx.workflow,
    state: ctx.state,
    index: ctx.index,
    repositories: () => [...allRepos(ctx.policy), ...ctx.index.repositories()],
    updateThreat: (id, change) => updateThreat(ctx, id, change),
    putGroup: (key, group) => putGroup(ctx, key, group),
    setData: (name, value) => setMeta(ctx, "features", { ...ctx.state.features, [name]: value }),
    enqueue: (id, work) => enqueue(ctx, id, work, nowIso(ctx)),
    persist: () => persist(ctx),
    emit: (event) => ctx.emit(event),
    subscribe: (observer) => ctx.subscribe(observer),
    once: (key) => {
      if (said.has(key)) return false;
      said.add(key);
      return true;
    },
  };
  MADE.set(ctx, made);
  return made;
}
