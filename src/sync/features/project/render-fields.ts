import { compileTemplates } from "../../../config/index.js";
import type { ThreatRecord } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import { titleScope } from "../../render/template-scope.js";
import type { AssetView } from "../../render/index.js";
import { slaView } from "../sla/transitions.js";

type FieldTemplates = ReadonlyMap<string, (scope: object) => string>;

const COMPILED = new WeakMap<object, FieldTemplates>();

/** Each configured field's template, parsed once per config (checked when the config was read). */
function templatesOf(fields: Readonly<Record<string, string>>): FieldTemplates {
  let compiled = COMPILED.get(fields);
  if (!compiled) {
    const map = new Map<string, (scope: object) => string>();
    for (const [name, source] of Object.entries(fields)) {
      const render = compileTemplates({ title: source }).renderTitle;
      if (render) map.set(name, render);
    }
    compiled = map;
    COMPILED.set(fields, compiled);
  }
  return compiled;
}

/**
 * Each configured field's text for the threat as the run read it, by field name; null when the run
 * has not read the threat (work planned from the record alone): the fields wait for a read. The
 * scope is the issue title's (plain text: a board cell shows text as it is, and platform text is
 * escaped so that it cannot mention anyone).
 */
export function renderFields(
  ctx: SyncContext,
  threatId: string,
  record: ThreatRecord,
): Map<string, string> | null {
  const config = ctx.config.github.project;
  if (config === undefined) return null;
  const read = ctx.cache.get(threatId)?.view;
  if (!read) return null;
  const view = record.sla ? { ...read, sla: slaView(record.sla, ctx.clock.now()) } : read;
  const assetRecord = view.assetId ? ctx.state.assets[view.assetId] : undefined;
  const asset: AssetView | null =
    view.assetId && assetRecord ? { id: view.assetId, name: assetRecord.name, type: assetRecord.type } : null;
  const scope = titleScope(view, asset, ctx.config.platform.ui_url);
  const out = new Map<string, string>();
  for (const [name, render] of templatesOf(config.fields)) {
    try {
      out.set(name, render(scope));
    } catch (error) {
      // A render that fails (a work limit) leaves the field as it is.
      ctx.logger.warn(
        {
          threat_id: threatId,
          ...(record.issue ? { issue: `${record.issue.repo}#${record.issue.number}` } : {}),
          field: name,
          err: error,
        },
        "a project field's template failed to render: the field is left as it is",
      );
    }
  }
  return out;
}
