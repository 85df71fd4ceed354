import type { Config } from "../../config/index.js";
import type { IssueSnapshot } from "../../github/index.js";
import type { ThreatRecord } from "../../state/index.js";
import { acceptance } from "./acceptance/index.js";
import { sla } from "./sla/index.js";
import { project } from "./project/index.js";
import { notes } from "./notes/index.js";
import type { Feature } from "./types.js";
import type { ActionModule } from "../actions/types.js";
import type { FeatureAction } from "../plan/plan.js";

/** Every feature the connector has, in the order the core calls them. */
// Risk acceptance first: its steps were queued before the SLA's, and ties in the queue go by age.
const FEATURES: readonly Feature[] = [acceptance, sla, notes, project];

/** The features the config switches on (its section present), built once per process. */
export function featuresFor(config: Config): readonly Feature[] {
  return FEATURES.filter((feature) =>
    feature.configured ? feature.configured(config) : config[feature.configKey] !== undefined,
  );
}

/** The feature of that name, whether configured or not (an intent outlives a config change). */
export function featureNamed(name: string): Feature | undefined {
  return FEATURES.find((feature) => feature.name === name);
}

/** The module a feature registered for an action's step; a step no feature has is a bug. */
export function featureModule(action: FeatureAction): ActionModule<FeatureAction, unknown> {
  const module = featureNamed(action.feature)?.actions?.[action.step];
  if (!module) throw new Error(`no feature module for ${action.feature}.${action.step}`);
  return module;
}

/** The record as each configured feature notes an issue made or taken over (features/types.ts). */
export function issueFound(config: Config, record: ThreatRecord, issue: IssueSnapshot): ThreatRecord {
  let out = record;
  for (const feature of featuresFor(config)) if (feature.onIssueFound) out = feature.onIssueFound(out, issue);
  return out;
}
