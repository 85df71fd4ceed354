import { createHash } from "node:crypto";
import type { Config } from "../../config/index.js";
import type { Logger } from "../../observability/index.js";
import type { Route } from "./types.js";
import { routeShown } from "./route-line.js";
import { featureIssueKeys } from "../../config/index.js";
import {
  compileTemplates,
  renderIssue,
  type AssetView,
  type RelatedView,
  type RenderedIssue,
  type ThreatView,
} from "./index.js";

/**
 * The hash that decides whether an issue needs an update is taken over what the issue is made from,
 * so deciding costs no rendering; it leaves out age, status and `updated_at`, which change without
 * anything worth a GitHub write (the connector's own link, echoed back, bumps `updated_at`).
 */

/** Bump when the default rendering changes, so that existing issues are brought up to date. */
const RENDER_VERSION = 2;

export interface Rendered {
  readonly hash: string;
  readonly issue: RenderedIssue;
}

export interface Renderer {
  render(threat: ThreatView, asset: AssetView | null, route: Route): Rendered;
  /** Changes when the config changes what issues show (templates, fields, labels, routes). */
  readonly key: string;
}

/**
 * The related assets already read for an asset (src/sync/related/): the shell reads them before a
 * body is written, the renderer only looks them up. null: none to show.
 */
export interface RelatedSource {
  peek(assetId: string): RelatedView | null;
}

export function createRenderer(config: Config, logger?: Logger, related?: RelatedSource): Renderer {
  const templates = compileTemplates(config.templates);
  const relatedLimit = config.render?.related_assets ?? 0;
  const opts = {
    managedLabel: config.github.managed_label,
    platformUiUrl: config.platform.ui_url,
    templates,
    // A body template that names `route` places the route's line itself.
    bodyPlacesRoute: /\broute\b/.test(config.templates.body ?? ""),
  };
  const fixed = JSON.stringify([
    RENDER_VERSION,
    config.templates,
    opts.managedLabel,
    opts.platformUiUrl ?? null,
    // Switching the list on (or changing N) brings every issue up to date once. The list itself is
    // not in the hash: deciding needs no walk, and a neighbourhood that changed while the asset did
    // not rewrites nothing; the list is current whenever the body is written for another reason.
    ...(relatedLimit > 0 ? [["related_assets", relatedLimit]] : []),
  ]);
  // A feature's settings that change what issues show (config/issue-keys.ts): switching it on, or a
  // change of them, re-reads every threat, so issues get what it adds.
  const featureKeys = featureIssueKeys(config);
  // A user template that names `status` shows it: then (and only then) a status change is content.
  const templatesText = JSON.stringify(config.templates);
  const templatesShowStatus = /\bstatus\b/.test(templatesText);
  // The built-in body never shows what a feature's clock changes. A user template that names it
  // shows it: then (and only then) it is content, and each such issue is rewritten once a day.
  const clockShown = new Map<RegExp, boolean>();
  const showsClock = (names: RegExp): boolean => {
    let shown = clockShown.get(names);
    if (shown === undefined) clockShown.set(names, (shown = names.test(templatesText)));
    return shown;
  };
  const key = createHash("sha256")
    .update(
      JSON.stringify([
        fixed,
        config.fields,
        config.routes.map((r) => r.match),
        ...featureKeys,
        // Grouping on (or a new key) files every threat under its group: the stream is read again.
        ...(config.grouping ? [["grouping", config.grouping.by, config.grouping.mode]] : []),
      ]),
    )
    .digest("hex")
    .slice(0, 16);
  return {
    key,
    render(threat, asset, route) {
      // The route's line is what the issue shows of its route: its labels and assignees are the
      // new issue's only (plan.ts), so they are not content an update brings back.
      const shown = routeShown(route);
      // Both are taken on first use: the planner asks neither for a threat that gets no issue.
      let hash: string | undefined;
      let issue: RenderedIssue | undefined;
      return {
        get hash(): string {
          if (hash === undefined) {
            // The route's values are in the hash as the route they make (its line), not as data.
            const {
              ageDays: _age,
              updatedAt: _updated,
              status,
              features,
              routeValues: _route,
              ...rest
            } = threat;
            let content: object = rest;
            for (const part of Object.values(features ?? {}))
              content = {
                ...content,
                ...part.content,
                ...(part.clock && showsClock(part.clock.names) ? part.clock.content : {}),
              };
            const shownThreat = templatesShowStatus ? { ...content, status } : content;
            hash = createHash("sha256")
              .update(fixed)
              .update(JSON.stringify([shownThreat, asset, shown === null ? [] : [shown.line]]))
              .digest("hex")
              .slice(0, 32);
          }
          return hash;
        },
        get issue(): RenderedIssue {
          if (!issue) {
            const list = related && threat.assetId !== null ? related.peek(threat.assetId) : null;
            const outcome = renderIssue(threat, asset, { ...opts, route: shown, related: list });
            for (const w of outcome.warnings)
              logger?.warn({ threat_id: threat.id, ...w }, "issue template failed; default used");
            issue = { title: outcome.title, body: outcome.body, labels: outcome.labels };
          }
          return issue;
        },
      };
    },
  };
}
