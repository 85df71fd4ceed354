import type { CompiledTemplates } from "../../config/index.js";
import type { KeptValue } from "../../shared/kept-values.js";

export type { CompiledTemplates };

/** What an issue shows of a threat's SLA: its due day, and (templates only) days left and breach. */
export interface SlaView {
  /** The due day, YYYY-MM-DD (UTC). */
  due: string;
  /** Whole days from today (UTC) to the due day; 0 on the day, negative past it. */
  daysLeft: number;
  breached: boolean;
  /** When the SLA started: kept in the body as a hidden line, so a lost state does not restart it. */
  since: string;
}

/** What the renderer sees: plain data, already normalized by `./normalize.ts`. */
export interface ThreatView {
  id: string;
  /** null when the mapped field is missing: the title then falls back to the id. */
  title: string | null;
  description: string | null;
  severity: string | null;
  /** 0 informational .. 4 critical. */
  severityRank: number | null;
  module: string | null;
  /** unsolved | solved | false_positive | accepted | pending | anything else the platform sends. */
  status: string;
  ageDays: number | null;
  assetId: string | null;
  moduleData: Record<string, unknown> | null;
  updatedAt: string;
  /** The threat's SLA as of now (config `sla`); absent when it has none. */
  sla?: SlaView | undefined;
  /** The values at the routes' `where` paths into the threat, those present only. */
  routeValues?: Readonly<Record<string, KeptValue>>;
}

/** Where a threat's issue goes and what it carries (plan/policy.ts `routeFor`: the config's routes). */
export interface Route {
  repo: string;
  /** Given to a new issue only: a person's later change of them stands (contract, "Conventions"). */
  labels: string[];
  assignees: string[];
  /** The rule that matched (counted from 0) and what of it matched; absent when none did. */
  placed?: { index: number; matched: { key: string; value: string }[] };
}

export interface RouteShown {
  rule: number;
  line: string;
}

export interface AssetView {
  id: string;
  name: string | null;
  type: string | null;
}

/** The first assets of the platform's related walk (config `render.related_assets`), and how many more. */
export interface RelatedView {
  assets: AssetView[];
  more: number;
}

export interface RenderOptions {
  managedLabel: string;
  /** The route that placed the issue; absent or null: the issue says nothing of routes. */
  route?: RouteShown | null | undefined;
  /** The body template places `route` itself; otherwise the line is put before the marker. */
  bodyPlacesRoute?: boolean | undefined;
  /** e.g. "https://app.example.com/threats/{id}": a link to the threat in the body. */
  platformUiUrl?: string | undefined;
  templates?: CompiledTemplates | undefined;
  /** The related assets to list; absent or null: no list (off, not read, or the walk failed). */
  related?: RelatedView | null | undefined;
}

export interface RenderedIssue {
  title: string;
  body: string;
  labels: string[];
}

export interface RenderWarning {
  /** `template_render_failed`: the template threw or hit a limit; `template_empty_output`: it rendered nothing. */
  code: "template_render_failed" | "template_empty_output";
  part: "title" | "body";
  message: string;
}

/** A rendered issue plus what went wrong with user templates (the default was used instead). */
export interface RenderOutcome extends RenderedIssue {
  warnings: RenderWarning[];
}
