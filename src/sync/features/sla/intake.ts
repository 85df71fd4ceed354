import type { Config } from "../../../config/index.js";
import type { Threat } from "../../../platform/index.js";
import { parseDuration } from "../../../shared/duration.js";
import { SEVERITIES } from "../../../shared/severity.js";
import type { ThreatRecord } from "../../schema.js";
import { slaBreachRemoved, withSla } from "./transitions.js";
import { slaOf } from "./slice.js";
import type { IssueSnapshot } from "../../../github/index.js";
import { getPath } from "../../../shared/json.js";
import type { FeatureContext } from "../types.js";

/** The shell of the SLA's start: the config's duration, the threat's detection time, the clock. */

/** The duration of a severity rank in ms, or null when the config gives it none. */
export function slaDurationMs(sla: NonNullable<Config["sla"]>, rank: number | null): number | null {
  const name = rank === null ? undefined : SEVERITIES[rank];
  const text = name === undefined ? undefined : sla[name];
  return text === undefined ? null : parseDuration(text);
}

/** Epoch seconds below this are taken as seconds, above it as milliseconds (year 5138 in seconds). */
const EPOCH_SECONDS_BELOW = 1e11;

/** A detection time: an ISO time, an ISO day (its UTC start), or Unix seconds or milliseconds; else null. */
function timeOf(value: unknown): number | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) return null;
    return value < EPOCH_SECONDS_BELOW ? value * 1000 : value;
  }
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return timeOf(Date.parse(`${text}T00:00:00Z`));
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
    const ms = Date.parse(text.replace(" ", "T"));
    return Number.isFinite(ms) ? ms : null;
  }
  if (/^\d{9,13}$/.test(text)) return timeOf(Number(text));
  return null;
}

/** `fields.threat.detected_at` as epoch ms, or null (with `unreadable` told, so it is said once). */
export function detectedAtMs(
  config: Config,
  threat: Threat,
  unreadable?: (value: unknown) => void,
): number | null {
  const path = config.fields.threat.detected_at;
  if (path === undefined) return null;
  const value = getPath(threat, path);
  const ms = timeOf(value);
  if (ms !== null) return ms;
  unreadable?.(value);
  return null;
}

/** Said once per process: a configured `detected_at` that a threat does not carry as an ISO time. */
function noteUnreadable(ctx: FeatureContext, threatId: string): (value: unknown) => void {
  return (value) => {
    if (!ctx.once("sla.detected_at")) return;
    ctx.logger.warn(
      { threat_id: threatId, path: ctx.config.fields.threat.detected_at, value: String(value).slice(0, 100) },
      "fields.threat.detected_at is not a time (ISO, or Unix seconds or milliseconds) on this threat; its SLA starts when the connector first sees it unsolved (said once)",
    );
  };
}

export function slaOnVersion(
  ctx: FeatureContext,
  before: ThreatRecord | undefined,
  after: ThreatRecord,
  threat: Threat,
  severityRank: number | null,
): ThreatRecord {
  const sla = ctx.config.sla;
  if (!sla) return after;
  return withSla(before, after, {
    nowMs: ctx.clock.now(),
    durationMs: slaDurationMs(sla, severityRank),
    detectedAtMs: detectedAtMs(ctx.config, threat, noteUnreadable(ctx, threat.id)),
    restartOnReopen: sla.restart_on_reopen,
  });
}

/** A person removed the breach label: noted and logged once, never added again for this due date. */
export function noteBreachLabel(ctx: FeatureContext, threatId: string, issue: IssueSnapshot): void {
  const label = ctx.config.sla?.breach_label;
  if (label === undefined || slaOf(ctx.state.threats.get(threatId))?.breach !== "added") return;
  const wanted = label.toLowerCase();
  if (issue.labels.some((l) => l.toLowerCase() === wanted)) return;
  ctx.updateThreat(threatId, slaBreachRemoved);
  ctx.logger.warn(
    { threat_id: threatId, issue: `${issue.repo}#${issue.number}`, label },
    "a person removed the SLA breach label; the connector leaves it off",
  );
}
