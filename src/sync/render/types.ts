import type { CompiledTemplates } from "../../config/index.js";
import type { KeptValue } from "../../shared/kept-values.js";

export type { CompiledTemplates };

/**
 * What a feature adds to a threat's issue (features/types.ts `viewOf`), plain data the renderer
 * places without knowing the feature: lines of the built-in body, hidden lines after the marker,
 * template variables, and what of it is content (in the hash that decides an update).
 */
export interface FeatureShown {
  /** Lines the built-in body shows under the summary table. */
  readonly lines?: readonly string[];
  /** Hidden lines after the marker, on every body (built-in or templated): what a lost state reads back. */
  readonly hidden?: readonly string[];
  /** Its variables in the issue templates' scope: plain values the connector computed (nothing escaped). */
  readonly scope?: Readonly<Record<string, unknown>>;
  /** What of it is content, as fields beside the threat's in the hash that decides an update. */
  readonly content?: Readonly<Record<string, unknown>>;
  /**
   * What the clock changes: content only while a template names one of `names` (then each such
   * issue is rewritten once a day); the built-in body never shows it.
   */
  readonly clock?: { readonly names: RegExp; readonly content: Readonly<Record<string, unknown>> };
  /** The day its issue is due, YYYY-MM-DD (UTC): a group's parent shows its members' earliest. */
  readonly dueDay?: string;
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
  /** What the configured features add to its issue as of now, by feature name; absent when none does. */
  features?: Readonly<Record<string, FeatureShown>> | undefined;
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
