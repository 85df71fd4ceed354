export type {
  AssetView,
  CompiledTemplates,
  FeatureShown,
  RelatedView,
  RenderedIssue,
  RenderOptions,
  RenderOutcome,
  RenderWarning,
  Route,
  RouteShown,
  ThreatView,
} from "./types.js";
export { renderIssue } from "./render-issue.js";
export { withLabels } from "./labels.js";
export { routeLine, routeShown } from "./route-line.js";
export { compileTemplates, TemplateError } from "../../config/index.js";
export { findMarkerIds, markerFor } from "../../shared/index.js";
export { escapeMarkdownInline, escapePlainText } from "./escape.js";
export { MAX_BODY_LENGTH, MAX_LABEL_LENGTH, MAX_RENDERED_BODY_LENGTH, MAX_TITLE_LENGTH } from "./limits.js";
