// The far side of bench/engine-scale.mjs, in a process of its own (so that its memory and CPU do not
// count towards the CLI's): the platform simulator and the GitHub stand-in, both in-process here,
// and — with --state — a VERSION-1 state file (today's format, src/state/schema.ts) built from this
// very simulator's threats, so that updated_at, status and stream_position match what the stream
// delivers (the simulator's data depends on its clock, so another process could not rebuild them).
// Prints one JSON line {platformUrl, githubUrl, threats, mapped, stateBytes} and serves until SIGTERM.
// With --workflow, each unsolved threat's record holds the SLA a connector with `sla` on every
// severity and `milestones: weekly` gives it (started now, so none is due during the bench).
// Usage: node bench/scale-fixture.mjs --threats N [--seed S] [--state FILE] [--repo owner/name] [--workflow]
import { Buffer } from "node:buffer";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { toAssetView } from "../dist/sync/render/normalize.js";
import { weeklyMilestone } from "../dist/sync/transitions/sla.js";
import { platformClient } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    threats: { type: "string" },
    seed: { type: "string", default: "7" },
    state: { type: "string" },
    repo: { type: "string", default: "acme/security-threats" },
    token: { type: "string", default: "ghp_bench" },
    workflow: { type: "boolean", default: false },
  },
});
const threats = Number(values.threats);
const SEVERITY_RANK = { informational: 0, low: 1, medium: 2, high: 3, critical: 4 };
const CLOSED = new Set(["solved", "false_positive", "accepted"]);
/** The SLA durations of bench/feature-costs.mjs's config, by severity rank, in days. */
const SLA_DAYS = [365, 180, 90, 30, 7];
const SLA_START = Date.now();

const sim = await startSimulator({
  seed: Number(values.seed),
  threats,
  assets: Math.max(1, Math.min(5_000, Math.ceil(threats / 20))),
  asyncWriteDelayMs: 0,
});
// "Budget off" is GitHub Enterprise Server, where rate limiting is off unless an admin turns it on:
// the stand-in's default primary limit (5,000 points an hour, as on GitHub.com) would stop a
// stream after ~5,000 creates and end the cycle with the rest queued, which measures the stand-in.
const gh = await startGitHubStandIn({ tokens: [values.token], primaryLimit: { perHour: 10_000_000 } });

/**
 * Every visible threat as already synced: a mapped record whose updatedAt and status equal the
 * stream's, so that a re-delivery is "no change" (spec, "Events"), and an issue record. The issue
 * itself is not created on the stand-in (100k-300k POSTs would take longer than the bench):
 * `github.since` is set to now, so the cycle's "what changed on GitHub since" finds nothing.
 */
async function v1State() {
  const repo = values.repo;
  // The stream as the connector will read it (the in-process inspection has no stream_position).
  const latest = new Map();
  const client = platformClient(sim.url, { pageLimit: 500 });
  for await (const page of client.streamThreats(null)) {
    for (const item of page.items) if (item.ok) latest.set(item.value.id, item.value);
  }
  // The assets as a synced connector holds them (the engine's own mapping of name and type), so
  // that re-reading them is a re-delivery too and a "no-change" sync records nothing.
  const assets = {};
  for await (const page of client.streamAssets(null)) {
    for (const item of page.items) {
      if (!item.ok) continue;
      const a = item.value;
      const view = toAssetView(a, { name: "name", type: "type" });
      assets[a.id] = a.deleted
        ? { name: null, type: null, deleted: true, updatedAt: a.updated_at }
        : { name: view.name, type: view.type, deleted: false, updatedAt: a.updated_at };
    }
  }
  await client.close();
  const records = {};
  let number = 0;
  for (const t of latest.values()) {
    number += 1;
    const state = CLOSED.has(t.status) ? "closed" : "open";
    records[t.id] = {
      status: t.status,
      severity: SEVERITY_RANK[String(t.severity)] ?? 0,
      assetId: t.asset_id ?? null,
      updatedAt: t.updated_at,
      position: String(t.stream_position),
      gone: false,
      issue: {
        repo,
        number,
        url: `${gh.url}/${repo}/issues/${number}`,
        state,
        hash: `bench${number.toString(16).padStart(27, "0")}`,
      },
      link: `${repo}#${number}`,
    };
    if (values.workflow && t.status === "unsolved") {
      const days = SLA_DAYS[records[t.id].severity];
      const sla = {
        since: new Date(SLA_START).toISOString(),
        due: new Date(SLA_START + days * 86_400_000).toISOString(),
      };
      records[t.id].sla = { ...sla, milestone: weeklyMilestone(sla).title };
    }
  }
  return {
    version: 1,
    cursors: { assets: null, threats: null },
    github: { since: { [repo]: new Date().toISOString() }, etags: [] },
    assets,
    threats: records,
    queue: {},
    intents: {},
    retry: { threats: {}, assets: {} },
    seq: 0,
    lastCycle: null,
  };
}

let mapped = 0;
let stateBytes = 0;
if (values.state) {
  const state = await v1State();
  mapped = Object.keys(state.threats).length;
  const text = JSON.stringify(state);
  writeFileSync(values.state, text);
  stateBytes = Buffer.byteLength(text);
}
process.stdout.write(
  `${JSON.stringify({ platformUrl: sim.url, githubUrl: gh.url, threats, mapped, stateBytes })}\n`,
);
const stop = async () => {
  await Promise.allSettled([sim.close(), gh.close()]);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
