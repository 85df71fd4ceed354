import type { Config } from "../../config/index.js";
import type { IssueSnapshot } from "../../github/index.js";
import type { Threat } from "../../platform/index.js";
import type { GroupRecord, Intent, ThreatRecord } from "../schema.js";
import type { SyncContext } from "../context.js";
import { parseMarkerFound } from "../../shared/index.js";
import { acceptance } from "./acceptance/index.js";
import { recurrence } from "./recurrence/index.js";
import { sla } from "./sla/index.js";
import { project } from "./project/index.js";
import { notes } from "./notes/index.js";
import { featureContext } from "./feature-context.js";
import type {
  DecideAt,
  Feature,
  FeaturePlanHooks,
  FeatureRecordHooks,
  FeatureStatus,
  Rendering,
} from "./types.js";
import type { ActionModule } from "../actions/types.js";
import type { CreateAttributes, Decider, FeatureAction } from "../plan/plan.js";
import type { FeatureShown, ThreatView } from "../render/index.js";

export { featureContext } from "./feature-context.js";

/** Every feature the connector has, in the order the core calls them. */
// Risk acceptance first: its deciders come before the recurrence's, and its queued steps before the SLA's.
const FEATURES: readonly Feature[] = [acceptance, recurrence, sla, notes, project];

/** The configured features, whole and by what the core asks of them, made once per config: a switched-off feature costs nothing. */
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
  /** Those that keep a marker's number (`FeatureRecordHooks.marker`). */
  readonly marker: readonly Feature[];
}

const PLUGGED = new WeakMap<Config, Plugged>();

export function pluggedFor(config: Config): Plugged {
  const known = PLUGGED.get(config);
  if (known) return known;
  const all = FEATURES.filter((feature) => isConfigured(feature, config));
  const recording = (hook: keyof FeatureRecordHooks) => all.filter((f) => f.record?.[hook] !== undefined);
  const planning = (hook: keyof FeaturePlanHooks) => all.filter((f) => f.plan?.[hook] !== undefined);
  const plugged: Plugged = {
    all,
    onThreatVersion: recording("onThreatVersion"),
    onIssueChange: recording("onIssueChange"),
    onIssueFound: recording("onIssueFound"),
    onStatusSeen: recording("onStatusSeen"),
    viewOf: planning("viewOf"),
    createWith: planning("createWith"),
    plan: planning("threat"),
    decide: planning("decide"),
    plannedFromRecord: all.filter((feature) => feature.clock?.plannedFromRecord !== undefined),
    marker: recording("marker"),
  };
  PLUGGED.set(config, plugged);
  return plugged;
}

function isConfigured(feature: Feature, config: Config): boolean {
  return feature.configured ? feature.configured(config) : config[feature.configKey] !== undefined;
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
  const module = featureNamed(action.feature)?.actions?.modules[action.step];
  if (!module) throw new Error(`no feature module for ${action.feature}.${action.step}`);
  return module;
}

/** What a feature made for its action modules (features/types.ts `FeatureActions.runtime`), or undefined. */
export function featureRuntime(ctx: SyncContext, name: string): unknown {
  return featureNamed(name)?.actions?.runtime?.(featureContext(ctx));
}

/**
 * The features a record's hook asks: the configured ones, and a switched-off one whose slice the
 * record holds (what it kept outlives its setting). Callers ask it only of a record with slices.
 */
function askedFor(config: Config, record: ThreatRecord): readonly Feature[] {
  const all = pluggedFor(config).all;
  const slices = record.slices ?? {};
  const held = FEATURES.filter((f) => !all.includes(f) && slices[f.name] !== undefined);
  return held.length === 0 ? all : FEATURES.filter((f) => all.includes(f) || held.includes(f));
}

/** The record as each configured feature takes a new version of the threat (intake). */
export function threatVersionSeen(
  ctx: SyncContext,
  before: ThreatRecord | undefined,
  after: ThreatRecord,
  threat: Threat,
  severityRank: number | null,
): ThreatRecord {
  let record = after;
  const features = featureContext(ctx);
  for (const feature of pluggedFor(ctx.config).onThreatVersion)
    record = feature.record?.onThreatVersion?.(features, before, record, threat, severityRank) ?? record;
  return record;
}

/** Each configured feature's note of a change of the threat's issue seen on GitHub. */
export function issueChanged(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void {
  const features = pluggedFor(ctx.config).onIssueChange;
  if (features.length === 0) return;
  const fctx = featureContext(ctx);
  for (const feature of features) feature.record?.onIssueChange?.(fctx, threatId, issue);
}

/**
 * The record as each configured feature notes an issue made or taken over (features/types.ts),
 * its marker's number first (a number past 1 is asked of every feature: a marker outlives a setting).
 */
export function issueFound(config: Config, record: ThreatRecord, issue: IssueSnapshot): ThreatRecord {
  const number = parseMarkerFound(issue.body)?.occurrence ?? 1;
  const marked = number > 1 || record.slices !== undefined || pluggedFor(config).marker.length > 0;
  let out = marked ? markerAdopted(config, record, number) : record;
  for (const feature of pluggedFor(config).onIssueFound)
    out = feature.record?.onIssueFound?.(out, issue) ?? out;
  return out;
}

/** The configured features' deciders for one plan (plan.ts `PlanInput.deciders`), in the registry's order. */
export function decidersFor(config: Config, at: DecideAt): Decider[] {
  const out: Decider[] = [];
  for (const feature of pluggedFor(config).decide) {
    const decider = feature.plan?.decide?.(config, at);
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
  const fctx = featureContext(ctx);
  return features.some((f) => f.clock?.plannedFromRecord?.(record, fctx, nowMs) === true);
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
    const next: ThreatRecord | null | undefined = feature.record?.onStatusSeen?.(
      out ?? record,
      status,
      nowMs,
    );
    if (next) out = next;
  }
  return out;
}

/** The features' additions to the threat's view (the SLA's due day), by feature; undefined: none. */
export function featuresShown(
  config: Config,
  record: ThreatRecord,
  nowMs: number,
): Record<string, FeatureShown> | undefined {
  let shown: Record<string, FeatureShown> | undefined;
  for (const feature of pluggedFor(config).viewOf) {
    const part = feature.plan?.viewOf?.(record, nowMs);
    if (part) (shown ??= {})[feature.name] = part;
  }
  return shown;
}

/** What the configured features ask a new issue to be created with (the SLA's weekly milestone). */
export function createdWith(ctx: SyncContext, record: ThreatRecord): CreateAttributes {
  let out: CreateAttributes = {};
  const fctx = featureContext(ctx);
  for (const feature of pluggedFor(ctx.config).createWith)
    out = { ...out, ...feature.plan?.createWith?.(fctx, record) };
  return out;
}

/** Each configured feature's writes beside the core's for a threat, in the registry's order. */
export function featurePlans(
  ctx: SyncContext,
  threatId: string,
  record: ThreatRecord,
  view: ThreatView | null,
): FeatureAction[] {
  const fctx = featureContext(ctx);
  return pluggedFor(ctx.config).plan.flatMap((f) => f.plan?.threat?.(fctx, threatId, record, view) ?? []);
}

/** Each configured feature's writes for a group's issues, asked once the group's own plan is empty. */
export function groupPlans(ctx: SyncContext, groupId: string, group: GroupRecord): FeatureAction[] {
  const fctx = featureContext(ctx);
  return featuresFor(ctx.config).flatMap((f) => f.plan?.group?.(fctx, groupId, group) ?? []);
}

/** Each configured feature's reads once per cycle, before the drain. */
export async function beforeDrain(ctx: SyncContext): Promise<void> {
  for (const feature of featuresFor(ctx.config)) await feature.beforeDrain?.(featureContext(ctx));
}

/** The issue as the record asks it shown, by the features it asks (`askedFor`). */
export function renderedFor(
  config: Config,
  record: ThreatRecord | undefined,
  threatId: string,
  base: Rendering,
): Rendering {
  let out = base;
  if (record === undefined) return out;
  for (const feature of record.slices === undefined ? pluggedFor(config).all : askedFor(config, record))
    if (feature.plan?.render) out = feature.plan.render(record, threatId, out);
  return out;
}

/** The feature whose write an intent is (named, or claimed), configured or not. */
export function intentOwner(intent: Intent): Feature | undefined {
  if (intent.kind === "feature")
    return intent.feature === undefined ? undefined : featureNamed(intent.feature);
  return FEATURES.find((feature) => feature.actions?.claimsIntent?.(intent) === true);
}

/** Whether the intent's feature found its write landed; one without a `recover` answers false. */
export async function recoverFeatureIntent(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const recover = intentOwner(intent)?.actions?.recover;
  return recover ? recover(featureContext(ctx), intent) : false;
}

/** The record once a keyed comment that is a feature's step (a `comment` intent's `step`) is on the issue. */
export function stepCommented(config: Config, record: ThreatRecord, step: string): ThreatRecord {
  let out = record;
  for (const feature of record.slices === undefined ? pluggedFor(config).all : askedFor(config, record))
    if (feature.record?.stepCommented) out = feature.record.stepCommented(out, step);
  return out;
}

/** Which of the threat's issues the record maps (its marker's number; 1: the first), by the features it asks. */
export function markerNumberOf(config: Config, record: ThreatRecord | undefined): number {
  let number = 1;
  if (record === undefined) return number;
  for (const feature of record.slices === undefined ? pluggedFor(config).all : askedFor(config, record)) {
    const marker = feature.record?.marker;
    if (marker) number = Math.max(number, marker.numberOf(record));
  }
  return number;
}

/**
 * The record of a threat whose issue, marked with that number, was taken over: asked of the
 * features `askedFor` names, and of every feature for a number past 1 (a marker outlives a setting).
 */
export function markerAdopted(config: Config, record: ThreatRecord, number: number): ThreatRecord {
  let out = record;
  for (const feature of number > 1 ? FEATURES : askedFor(config, record)) {
    const marker = feature.record?.marker;
    if (marker) out = marker.adopted(out, number);
  }
  return out;
}

/** The configured features' parts of `status`, in the registry's order. */
export function featureStatuses(config: Config): ReadonlyArray<{ name: string; status: FeatureStatus }> {
  return featuresFor(config).flatMap((f) => (f.status ? [{ name: f.name, status: f.status }] : []));
}

/** Every feature's gauges, configured or not (a metric is on `/metrics` whether its feature is on or not). */
export function featureGauges(): ReadonlyArray<{
  feature: string;
  name: string;
  help: string;
  count: string;
}> {
  return FEATURES.flatMap((f) => (f.status?.gauges ?? []).map((gauge) => ({ feature: f.name, ...gauge })));
}
