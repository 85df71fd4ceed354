import { z } from "zod";
import { sliceOf, type FeatureContext } from "../types.js";
import { runtimeFor } from "./runtime.js";
import { decodeSlice, FEATURE, issueKey } from "./slice.js";

/** What the feature keeps beyond one record: the project whose backfill was queued (`owner/number`). */
const ProjectMeta = z.object({ backfilled: z.string().optional() });

function projectKey(ctx: FeatureContext): string | null {
  const config = ctx.config.github.project;
  return config === undefined ? null : `${config.owner}/${config.number}`;
}

/** Issues made before the project was configured are queued once, at the lowest class (contract). */
export async function queueBackfill(ctx: FeatureContext): Promise<void> {
  const key = projectKey(ctx);
  const runtime = runtimeFor(ctx);
  if (key === null || runtime === null || runtime.off) return;
  const meta = ProjectMeta.safeParse(ctx.state.features?.[FEATURE]);
  if (meta.success && meta.data.backfilled === key) return;
  // The project is looked up before anything is queued: a missing one queues nothing (said once).
  if ((await runtime.resolve()) === null) return;
  const due: string[] = [];
  ctx.state.threats.scan((id, _asset, issue, loose) => {
    if (issue === null || ctx.state.queue[id] !== undefined) return;
    const slice = decodeSlice(sliceOf(loose, FEATURE));
    if (slice && slice.k === issueKey(issue)) return;
    if (loose?.gone === true) return;
    due.push(id);
  });
  // At the lowest priority (contract): the queue's last class, after every other threat's work.
  for (const id of due) ctx.enqueue(id, { later: true });
  ctx.setData(FEATURE, { backfilled: key });
  if (due.length > 0)
    ctx.logger.info(
      { project: key, count: due.length },
      "issues made before the project was configured are queued to join it, after new work",
    );
}
