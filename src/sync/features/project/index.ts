import type { Feature } from "../types.js";
import { projectModules } from "./actions.js";
import { queueBackfill } from "./backfill.js";
import { checkProject } from "./check.js";
import { projectCounts, projectLine, projectTagger } from "./counts.js";
import { planGroupWrites, planProjectWrites } from "./plan.js";
import { recoverAdd } from "./recover.js";
import { renderFields, renderGroupFields } from "./render-fields.js";
import { runtimeFor } from "./runtime.js";
import { FEATURE } from "./slice.js";

/** Project items (contract, "The conversation back"): every issue joins once, its fields kept current. */
export const project: Feature = {
  name: FEATURE,
  configKey: "github",
  configured: (config) => config.github.project !== undefined,
  plan: {
    threat(ctx, threatId, record, view) {
      const runtime = runtimeFor(ctx);
      // No client for projects (the engine's own fakes) or the project missing: nothing is planned.
      if (runtime === null || runtime.off) return [];
      return planProjectWrites(threatId, record, renderFields(ctx, threatId, record, view));
    },
    group(ctx, groupId, group) {
      const runtime = runtimeFor(ctx);
      if (runtime === null || runtime.off) return [];
      return planGroupWrites(groupId, group, (issue) =>
        renderGroupFields(ctx, groupId, group, `${issue.repo}#${issue.number}`),
      );
    },
  },
  actions: { modules: projectModules, runtime: (ctx) => runtimeFor(ctx), recover: recoverAdd },
  beforeDrain: queueBackfill,
  check: checkProject,
  status: { counts: projectCounts, line: projectLine, tagger: projectTagger },
};
