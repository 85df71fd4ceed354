import { SEVERITIES } from "../shared/severity.js";
import type { Config } from "./schema.js";

/**
 * The settings of the config's feature sections that change what every issue shows, for the
 * render key (sync/render/renderer.ts): switching SLAs on, or changing a duration or the
 * milestones, re-reads every threat, so issues get their due dates. Empty when none is set.
 */
export function featureIssueKeys(config: Config): unknown[] {
  return config.sla ? [[...SEVERITIES.map((name) => config.sla?.[name] ?? null), config.sla.milestones]] : [];
}
