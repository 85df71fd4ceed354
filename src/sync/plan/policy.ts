import type { Config, RouteRule, VerdictRule } from "../../config/index.js";
import { severityName } from "../render/normalize.js";
import { noteRenderer, type NoteRenderer } from "./verdict-note.js";
import type { AssetView, Route, ThreatView } from "../render/index.js";
import { rankOfSeverity } from "../../shared/severity.js";
import { compileRoutes, firstMatch, wherePaths, type KeptValue } from "./route-match.js";

/**
 * The YAML's decisions as pure functions: which threats get an issue, where it goes, which issue
 * state a platform status asks for, and which verdict a person's close or reopen becomes.
 */

export type IssueState = "open" | "closed";
export type CloseReason = "completed" | "not_planned";

export interface Policy {
  defaultRepo: string;
  managedLabel: string;
  minSeverity: number;
  createForStatuses: readonly string[];
  modules: { include?: string[] | undefined; exclude?: string[] | undefined } | undefined;
  assetTypes: { include?: string[] | undefined; exclude?: string[] | undefined } | undefined;
  routes: readonly RouteRule[];
  compiledRoutes: ReturnType<typeof compileRoutes>;
  /** The `where` paths the routes read, by the JSON they start in: intake keeps these values. */
  wherePaths: { threat: string[]; asset: string[] };
  verdicts: Config["verdicts"];
  /** Renders a verdict's status note (Liquid), compiling each template once. */
  verdictNote: NoteRenderer;
}

export function policyFromConfig(config: Config): Policy {
  return {
    defaultRepo: config.github.repository,
    managedLabel: config.github.managed_label,
    minSeverity: rankOfSeverity(config.filters.min_severity) ?? 0,
    createForStatuses: config.filters.create_for_statuses,
    modules: config.filters.modules,
    assetTypes: config.filters.asset_types,
    routes: config.routes,
    compiledRoutes: compileRoutes(config.routes),
    wherePaths: wherePaths(config.routes),
    verdicts: config.verdicts,
    verdictNote: noteRenderer(),
  };
}

/** Whether a value passes a configured include/exclude list (case-insensitive). */
function passes(
  value: string | null,
  list: { include?: string[] | undefined; exclude?: string[] | undefined },
): boolean {
  const v = value?.toLowerCase() ?? null;
  if (list.include && !list.include.some((x) => x.toLowerCase() === v)) return false;
  if (list.exclude && v !== null && list.exclude.some((x) => x.toLowerCase() === v)) return false;
  return true;
}

/**
 * Why a threat that has no issue yet gets none, or null when it should get one (contract: filters,
 * first-seen statuses): eligibility is their absence, and the dry-run's plan counts them. A list
 * not configured is not asked.
 */
type NoIssueReason = "status" | "min_severity" | "module" | "asset_type";

export function noIssueReason(
  threat: ThreatView,
  asset: AssetView | null,
  policy: Policy,
): NoIssueReason | null {
  if (!policy.createForStatuses.includes(threat.status)) return "status";
  // An unknown severity word counts as informational: it passes only the lowest threshold.
  if ((threat.severityRank ?? 0) < policy.minSeverity) return "min_severity";
  if (policy.modules && !passes(threat.module, policy.modules)) return "module";
  if (policy.assetTypes && !passes(asset?.type ?? null, policy.assetTypes)) return "asset_type";
  return null;
}

export type { Route };

export type AssetValues = Readonly<Record<string, KeptValue>> | undefined;

/** First matching rule wins, else the default repository (contract, `routes`); reads only what is at hand. */
export function routeFor(
  threat: ThreatView,
  asset: AssetView | null,
  policy: Policy,
  assetValues?: AssetValues,
): Route {
  if (policy.compiledRoutes.length === 0) return defaultRoute(policy);
  const hit = firstMatch(policy.compiledRoutes, {
    severity: severityName(threat.severityRank),
    module: threat.module,
    assetType: asset?.type ?? null,
    assetName: asset?.name ?? null,
    values: (path) => (path.startsWith("asset.") ? assetValues?.[path] : threat.routeValues?.[path]),
  });
  if (hit === null) return defaultRoute(policy);
  const { rule, index, matched } = hit;
  return {
    repo: rule.repository ?? policy.defaultRepo,
    labels: rule.labels,
    assignees: rule.assignees,
    placed: { index, matched },
  };
}

/** Where an issue no route matched goes: the default repository, with nothing added. */
export function defaultRoute(policy: Pick<Policy, "defaultRepo">): Route {
  return { repo: policy.defaultRepo, labels: [], assignees: [] };
}

export function allRepos(policy: Policy): string[] {
  const repos = new Set([policy.defaultRepo]);
  for (const rule of policy.routes) if (rule.repository) repos.add(rule.repository);
  return [...repos];
}

/**
 * Platform → GitHub (contract, "Conventions"): unsolved → open; solved → closed as completed;
 * false_positive, accepted → closed as not planned; pending (and any status the spec may add later)
 * → leave the issue as it is.
 */
export function desiredIssueState(status: string): { state: IssueState; reason: CloseReason | null } | null {
  switch (status) {
    case "unsolved":
      return { state: "open", reason: null };
    case "solved":
      return { state: "closed", reason: "completed" };
    case "false_positive":
    case "accepted":
      return { state: "closed", reason: "not_planned" };
    default:
      return null;
  }
}

/** GitHub → platform: the configured verdict for a person's close (by reason) or reopen. */
export function verdictFor(event: "closed" | "reopened", reason: string | null, policy: Policy): VerdictRule {
  if (event === "reopened") return policy.verdicts.reopened;
  if (reason === "not_planned") return policy.verdicts.closed.not_planned;
  if (reason === "duplicate") return policy.verdicts.closed.duplicate;
  return policy.verdicts.closed.completed;
}
