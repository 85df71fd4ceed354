// What ordering the queue costs a drain: `dueWork` (the order, once per drain) and `queueSummary`
// (status, /metrics, the sync summary) over N queued threats, in-process. A quarter of the threats
// have no issue yet, a quarter have a closed issue, a quarter a status that closes theirs, the rest
// an open issue; all are held in the engine's in-memory state.
// With --vs DIR, a second build is set up in the same process and the two are timed in turn, the
// ratio taken pair by pair (both must give the same order).
// Usage: node bench/queue-order.mjs [--threats 100000] [--runs 21] [--vs ../other/dist]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    threats: { type: "string", default: "100000" },
    runs: { type: "string", default: "21" },
    vs: { type: "string" },
  },
});
const n = Number(values.threats);
const runs = Number(values.runs);
const REPO = "acme/security-threats";

async function setup(dist) {
  const at = (path) => pathToFileURL(resolve(dist, path)).href;
  // The records' schema is in sync/schema.js; builds before that kept it in state/index.js.
  const { emptyState } = await import(at("sync/schema.js")).catch(() => import(at("state/index.js")));
  const { createStateContext, putThreat } = await import(at("sync/records/state-updates.js"));
  const { ThreatIndex } = await import(at("sync/records/threat-index.js"));
  // The order lives in sync/plan/queue-order.js since the queue holds subjects; older builds kept it
  // beside `enqueue` in sync/records/queue.js.
  const order = await import(at("sync/plan/queue-order.js")).catch(() => ({}));
  const queue = { ...(await import(at("sync/records/queue.js"))), ...order };
  const ctx = { ...createStateContext(emptyState()), index: new ThreatIndex() };
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    const number = i + 1;
    const issue = {
      repo: REPO,
      number,
      url: `https://github.com/${REPO}/issues/${number}`,
      hash: "h",
      state: kind === 1 ? "closed" : "open",
    };
    putThreat(ctx, `t${i}`, {
      status: kind === 2 ? "solved" : "unsolved",
      severity: i % 5,
      assetId: null,
      updatedAt: "2026-01-01T00:00:00.000Z",
      ...(kind === 0 ? {} : { issue, link: `${REPO}#${number}` }),
    });
    queue.enqueue(ctx, `t${i}`, {}, "2026-01-01T00:00:00.000Z");
  }
  return { queue, state: ctx.state };
}

const time = (f) => {
  const start = performance.now();
  f();
  return performance.now() - start;
};
const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const ms = (v) => `${v.toFixed(1)} ms`;

const a = await setup("dist");
const b = values.vs ? await setup(values.vs) : null;
const rows = {
  dueWork: { a: [], b: [] },
  "dueWork, verdicts only": { a: [], b: [] },
  queueSummary: { a: [], b: [] },
};
/** `run`'s verdict step before each poll: the verdicts of the backlog (class 0), in order. */
const verdictsOnly = (q, s) =>
  q.dueWork.length >= 2 && q.dueWork.toString().includes("upTo")
    ? q.dueWork(s, 0, { upTo: 0 })
    : q.dueWork(s, 0).filter((d) => d.priority === 0);
for (let r = 0; r < runs; r++) {
  for (const [name, side] of [
    ["dueWork", (q, s) => q.dueWork(s, 0)],
    ["dueWork, verdicts only", verdictsOnly],
    ["queueSummary", (q, s) => q.queueSummary(s)],
  ]) {
    rows[name].a.push(time(() => side(a.queue, a.state)));
    if (b) rows[name].b.push(time(() => side(b.queue, b.state)));
  }
}
console.log(`queue order at ${n.toLocaleString("en")} queued threats, ${runs} runs, node ${process.version}`);
for (const [name, t] of Object.entries(rows)) {
  const line = `${name}: ${ms(median(t.a))}`;
  if (!b) console.log(line);
  else {
    const ratio = median(t.a.map((x, i) => x / t.b[i]));
    console.log(`${line} against ${ms(median(t.b))} (${values.vs}): ${ratio.toFixed(2)}× pair by pair`);
  }
}
if (b) {
  const order = (side) => side.queue.dueWork(side.state, 0).map((d) => d.id ?? d.threatId);
  console.log(JSON.stringify(order(a)) === JSON.stringify(order(b)) ? "same order" : "THE ORDERS DIFFER");
}
