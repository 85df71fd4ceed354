import { compileTemplates } from "../../../config/index.js";
import { fitsGroupIssue, fitsThreatIssue, groupFieldScope } from "../../../config/project.js";
import type { GroupRecord, ThreatRecord } from "../../schema.js";
import { escapePlainText } from "../../render/escape.js";
import { titleScope } from "../../render/template-scope.js";
import type { AssetView, ThreatView } from "../../render/index.js";
import type { FeatureContext } from "../types.js";

type FieldTemplates = ReadonlyMap<string, (scope: object) => string>;

/** Which kind of issue a field's template is rendered for: a threat's, or a group's. */
type IssueKind = "threat" | "group";

const COMPILED: Record<IssueKind, WeakMap<object, FieldTemplates>> = {
  threat: new WeakMap(),
  group: new WeakMap(),
};

const FITS: Record<IssueKind, (source: string) => boolean> = {
  threat: fitsThreatIssue,
  group: fitsGroupIssue,
};

/** Each field's template that reads only what the kind's issue offers, parsed once per config. */
function templatesOf(fields: Readonly<Record<string, string>>, kind: IssueKind): FieldTemplates {
  let compiled = COMPILED[kind].get(fields);
  if (!compiled) {
    const map = new Map<string, (scope: object) => string>();
    for (const [name, source] of Object.entries(fields)) {
      if (!FITS[kind](source)) continue;
      const render = compileTemplates({ title: source }).renderTitle;
      if (render) map.set(name, render);
    }
    compiled = map;
    COMPILED[kind].set(fields, compiled);
  }
  return compiled;
}

/** Each template rendered over the scope, by field name; a render that fails leaves its field out (said). */
function renderAll(
  ctx: FeatureContext,
  templates: FieldTemplates,
  scope: object,
  fields: { threat_id: string; issue?: string },
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, render] of templates) {
    try {
      out.set(name, render(scope));
    } catch (error) {
      // A render that fails (a work limit) leaves the field as it is.
      ctx.logger.warn(
        { ...fields, field: name, err: error },
        "a project field's template failed to render: the field is left as it is",
      );
    }
  }
  return out;
}

/** Each field's text for the threat as read, or null when not read; platform text escaped. */
export function renderFields(
  ctx: FeatureContext,
  threatId: string,
  record: ThreatRecord,
  view: ThreatView | null,
): Map<string, string> | null {
  const config = ctx.config.github.project;
  if (config === undefined) return null;
  if (!view) return null;
  const assetRecord = view.assetId ? ctx.state.assets[view.assetId] : undefined;
  const asset: AssetView | null =
    view.assetId && assetRecord ? { id: view.assetId, name: assetRecord.name, type: assetRecord.type } : null;
  const scope = titleScope(view, asset, ctx.config.platform.ui_url);
  return renderAll(ctx, templatesOf(config.fields, "threat"), scope, {
    threat_id: threatId,
    ...(record.issue ? { issue: `${record.issue.repo}#${record.issue.number}` } : {}),
  });
}

/** Each field's text for a group's issues: only the fields whose template reads the group (or nothing). */
export function renderGroupFields(
  ctx: FeatureContext,
  groupId: string,
  group: Pick<GroupRecord, "by" | "key">,
  issue: string,
): Map<string, string> {
  const config = ctx.config.github.project;
  if (config === undefined) return new Map();
  const name = group.by === "asset" ? (ctx.state.assets[group.key]?.name ?? null) : null;
  const scope = groupFieldScope({
    key: escapePlainText(group.key),
    name: escapePlainText(name ?? group.key),
    by: group.by,
  });
  return renderAll(ctx, templatesOf(config.fields, "group"), scope, { threat_id: groupId, issue });
}
