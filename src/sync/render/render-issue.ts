import { defaultBody, hiddenLinesOf } from "./default-body.js";
import { defaultTitle } from "./default-title.js";
import { escapePlainText, neutralizeMarkers } from "./escape.js";
import { inertRouteLine } from "./route-line.js";
import { labelsFor } from "./labels.js";
import { MAX_RENDERED_BODY_LENGTH, MAX_TITLE_LENGTH } from "./limits.js";
import { markerFor } from "../../shared/index.js";
import { bodyScope, titleScope } from "./template-scope.js";
import { truncateBlock, truncateWithEllipsis } from "./truncate.js";
import type { AssetView, RenderOptions, RenderOutcome, RenderWarning, ThreatView } from "./types.js";

/** A threat as a GitHub issue, deterministic; never throws: a failing template falls back to the default. */

function failure(part: "title" | "body", error: unknown): RenderWarning {
  const reason = error instanceof Error ? error.message : String(error);
  return { code: "template_render_failed", part, message: `templates.${part}: ${reason}; used the default` };
}

function empty(part: "title" | "body"): RenderWarning {
  return {
    code: "template_empty_output",
    part,
    message: `templates.${part} rendered nothing; used the default`,
  };
}

function templatedTitle(render: (scope: object) => string, scope: object): string {
  // The whole output goes through plain-text escaping: a title cannot mention or reference.
  return truncateWithEllipsis(escapePlainText(render(scope)), MAX_TITLE_LENGTH);
}

function templatedBody(
  render: (scope: object) => string,
  scope: object,
  threatId: string,
  hidden: readonly string[],
  routeLine: string | null,
): string {
  const rendered = neutralizeMarkers(render(scope)).trimEnd();
  if (rendered.trim() === "") return "";
  // The route's line is on every issue a route placed (contract), where the template puts it or last.
  const text = routeLine === null ? rendered : `${rendered}\n\n${routeLine}`;
  const marker = [markerFor(threatId), ...hidden].join("\n\n");
  return `${truncateBlock(text, MAX_RENDERED_BODY_LENGTH - marker.length - 2)}\n\n${marker}`;
}

export function renderIssue(threat: ThreatView, asset: AssetView | null, opts: RenderOptions): RenderOutcome {
  const warnings: RenderWarning[] = [];
  const templates = opts.templates;

  let title: string | null = null;
  if (templates?.renderTitle) {
    try {
      title = templatedTitle(
        templates.renderTitle,
        titleScope(threat, asset, opts.platformUiUrl, opts.related, opts.route),
      );
      if (title === "") {
        title = null;
        warnings.push(empty("title"));
      }
    } catch (error) {
      warnings.push(failure("title", error));
    }
  }

  let body: string | null = null;
  if (templates?.renderBody) {
    try {
      body = templatedBody(
        templates.renderBody,
        bodyScope(threat, asset, opts.platformUiUrl, opts.related, opts.route),
        threat.id,
        hiddenLinesOf(threat),
        opts.route && !opts.bodyPlacesRoute ? inertRouteLine(opts.route.line) : null,
      );
      if (body === "") {
        body = null;
        warnings.push(empty("body"));
      }
    } catch (error) {
      warnings.push(failure("body", error));
    }
  }

  return {
    title: title ?? defaultTitle(threat, asset),
    body: body ?? defaultBody(threat, asset, opts.platformUiUrl, opts.related, opts.route?.line ?? null),
    labels: labelsFor(threat, opts.managedLabel),
    warnings,
  };
}
