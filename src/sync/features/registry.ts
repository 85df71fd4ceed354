import type { Config } from "../../config/index.js";
import type { IssueSnapshot } from "../../github/index.js";
import type { Intent, ThreatRecord } from "../../state/index.js";
import type { SyncContext } from "../context.js";
import { parseMarkerFound } from "../../shared/index.js";
import { acceptance } from "./acceptance/index.js";
import { recurrence } from "./recurrence/index.js";
import { sla } from "./sla/index.js";
import { project } from "./project/index.js";
import { notes } from "./notes/index.js";
import type { DecideAt, Feature, Rendering } from "./types.js";
import type { ActionModule } from "../actions/types.js";
import type { Decider, FeatureAction } from "../plan/plan.js";

/** Every feature the connector has, in the order the core calls them. */
// Risk acceptance first: its deciders come before the recurrence's, and its queued steps before the SLA's.
const FEATURES: readonly Feature[] = [acceptance, recurrence, sla, notes, project];

/** The configured features, whole and by hook, made once per config: a switched-off feature costs nothing. */
export interface Plugged {
  readonly all: readonly Feature[];
  readonly onThreatVersion: readonly Feature[];
  readonly onIssueChange: readonly Feature[];
  readonly onIssueFound: readonly Feature[];
  readonly onStatusSeen: readonly Feature[];
  readonly viewOf: readonly Feature[];
  readonly createWith: readonly Feature[];
  readonly plan: readonly Feature[];
  readonly decide: readonly Feature[];
  /** Those whose clock may plan a step from the record alone (`FeatureClock.plannedFromRecord`). */
  readonly plannedFromRecord: readonly Feature[];
}

const PLUGGED = new WeakMap<Config, Plugged>();

export function pluggedFor(config: Config): Plugged {
  const known = PLUGGED.get(config);
  if (known) return known;
  const all = FEATURES.filter((feature) =>
    feature.configured ? feature.configured(config) : config[feature.configKey] !== undefined,
  );
  const having = (hook: keyof Feature) => all.filter((feature) => feature[hook] !== undefined);
  const plugged: Plugged = {
    all,
    onThreatVersion: having("onThreatVersion"),
    onIssueChange: having("onIssueChange"),
    onIssueFound: having("onIssueFound"),
    onStatusSeen: having("onStatusSeen"),
    viewOf: having("viewOf"),
    createWith: having("createWith"),
    plan: having("plan"),
    decide: having("decide"),
    plannedFromRecord: all.filter((feature) => feature.clock?.plannedFromRecord !== undefined),
  };
  PLUGGED.set(config, plugged);
  return plugged;
}

export function featuresFor(config: Config): readonly Feature[] {
  return pluggedFor(config).all;
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

/**
 * The record as each configured feature notes an issue made or taken over (features/types.ts),
 * its marker's number first (every feature: a marker outlives a setting).
 */
export function issueFound(config: Config, record: ThreatRecord, issue: IssueSnapshot): ThreatRecord {
  let out = markerAdopted(record, parseMarkerFound(issue.body)?.occurrence ?? 1);
  for (const feature of pluggedFor(config).onIssueFound) out = feature.onIssueFound?.(out, issue) ?? out;
  return out;
}

/** The configured features' deciders for one plan (plan.ts `PlanInput.deciders`), in the registry's order. */
export function decidersFor(config: Config, at: DecideAt): Decider[] {
  const out: Decider[] = [];
  for (const feature of pluggedFor(config).decide) {
    const decider = feature.decide?.(config, at);
    if (decider) out.push(decider);
  }
  return out;
}

/** Whether a configured feature's step due now is planned from the record alone (no read of the threat). */
export function plannedFromRecord(ctx: SyncContext, threatId: string, nowMs: number): boolean {
  const features = pluggedFor(ctx.config).plannedFromRecord;
  if (features.length === 0) return false;
  const record = ctx.state.threats.get(threatId);
  if (record === undefined) return false;
  return features.some((f) => f.clock?.plannedFromRecord?.(record, ctx, nowMs) === true);
}

/** The record as the configured features take the threat's status seen now, or null when none changed it. */
export function statusSeen(
  config: Config,
  record: ThreatRecord,
  status: string,
  nowMs: number,
): ThreatRecord | null {
  let out: ThreatRecord | null = null;
  for (const feature of pluggedFor(config).onStatusSeen) {
    const next: ThreatRecord | null | undefined = feature.onStatusSeen?.(out ?? record, status, nowMs);
    if (next) out = next;
  }
  return out;
}

/** The issue as the record asks it shown; every feature is asked, configured or not (a marker outlives a setting). */
export function renderedFor(record: ThreatRecord | undefined, threatId: string, base: Rendering): Rendering {
  let out = base;
  if (record === undefined) return out;
  for (const feature of FEATURES) if (feature.render) out = feature.render(record, threatId, out);
  return out;
}

/** The feature whose write an intent is (named, or claimed), configured or not. */
export function intentOwner(intent: Intent): Feature | undefined {
  if (intent.kind === "feature")
    return intent.feature === undefined ? undefined : featureNamed(intent.feature);
  return FEATURES.find((feature) => feature.claimsIntent?.(intent) === true);
}

/** The record once a keyed comment that is a feature's step (a `comment` intent's `step`) is on the issue. */
export function stepCommented(record: ThreatRecord, step: string): ThreatRecord {
  let out = record;
  for (const feature of FEATURES) if (feature.stepCommented) out = feature.stepCommented(out, step);
  return out;
}

/** Which of the threat's issues the record maps (its marker's number; 1: the first): every feature is asked, configured or not. */
export function markerNumberOf(record: ThreatRecord | undefined): number {
  let number = 1;
  if (record === undefined) return number;
  for (const feature of FEATURES)
    if (feature.marker) number = Math.max(number, feature.marker.numberOf(record));
  return number;
}

/** The record of a threat whose issue, marked with that number, was taken over: every feature, configured or not. */
export function markerAdopted(record: ThreatRecord, number: number): ThreatRecord {
  let out = record;
  for (const feature of FEATURES) if (feature.marker) out = feature.marker.adopted(out, number);
  return out;
}
