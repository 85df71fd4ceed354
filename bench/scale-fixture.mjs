// The far side of bench/engine-scale.mjs, in a process of its own (so that its memory and CPU do not
// count towards the CLI's): the platform simulator and the GitHub stand-in, both in-process here,
// and — with --state — a state (src/sync/schema.ts, stored as the engine stores it: bench/store-seed.mjs)
// built from this very simulator's threats, so that updated_at, status and stream_position match what the stream
// delivers (the simulator's data depends on its clock, so another process could not rebuild them).
// Prints one JSON line {platformUrl, githubUrl, threats, mapped, stateBytes} and serves until SIGTERM.
// With --workflow, each unsolved threat's record holds the SLA a connector with `sla` on every
// severity and `milestones: weekly` gives it (started now, so none is due during the bench).
// With --slices, every mapped threat's record also carries two plug-in features' slices of about 40
// characters each (ThreatRecord.slices, as notes and project items would leave them).
// With --groups P, about P % of the mapped threats are in groups (`grouping: {by: asset, mode:
// parent}`, the default min_members): every mapped threat of the first assets (by id) until P % is
// reached, each group with its parent issue attached to all its members (at most GitHub's 100)
// and its hash as the engine renders it, each member's issue with its GitHub id — as the group
// pass leaves them, so that an idle cycle finds nothing to do.
// With --accepted P, P % of the mapped threats (taken from those the platform holds `accepted`)
// carry a risk acceptance recorded and announced (ThreatRecord.acceptance, step `announced`) a
// month ago, ending in two months (`acceptance.default: 90d`), so none is due during the bench.
// With --counters, the JSON line also has `countersUrl` (127.0.0.1): GET it for the stand-in's
// and the simulator's request counters ({github, platform}), to check that a run wrote nothing.
// With --state-dist DIR, the state at --state is stored through the state API of the build whose
// dist/ is DIR (bench/store-seed.mjs) instead of this checkout's.
// With --also-state FILE --also-dist DIR, the very same state is also stored at FILE through the
// state API of the build whose dist/ is DIR (bench/store-seed.mjs), so that two builds paired by
// bench/store-pair.mjs start from one world; the JSON line then also has `alsoStateBytes`.
// Usage: node bench/scale-fixture.mjs --threats N [--seed S] [--state FILE] [--repo owner/name] [--workflow] [--slices]
//          [--groups P] [--accepted P] [--counters] [--state-dist DIR] [--also-state FILE --also-dist DIR]
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { compileGroupTitle, DEFAULT_GROUP_TITLE } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { toAssetView, toThreatView } from "../dist/sync/render/normalize.js";
import { slaShown, weeklyMilestone } from "../dist/sync/features/sla/transitions.js";
import { encodeSlice as encodeProjectSlice, valueHash } from "../dist/sync/features/project/slice.js";
import { groupIdOf } from "../dist/sync/groups/group-key.js";
import { SUB_ISSUES_MAX } from "../dist/sync/groups/plan-groups.js";
import { renderParent } from "../dist/sync/groups/render-parent.js";
import { platformClient } from "./lib.mjs";
import { seedStore } from "./store-seed.mjs";

const { values } = parseArgs({
  options: {
    threats: { type: "string" },
    seed: { type: "string", default: "7" },
    state: { type: "string" },
    repo: { type: "string", default: "acme/security-threats" },
    token: { type: "string", default: "ghp_bench" },
    workflow: { type: "boolean", default: false },
    slices: { type: "boolean", default: false },
    groups: { type: "string", default: "0" },
    accepted: { type: "string", default: "0" },
    counters: { type: "boolean", default: false },
    "state-dist": { type: "string" },
    "also-state": { type: "string" },
    "also-dist": { type: "string" },
  },
});
const threats = Number(values.threats);
const SEVERITY_RANK = { informational: 0, low: 1, medium: 2, high: 3, critical: 4 };
const CLOSED = new Set(["solved", "false_positive", "accepted"]);
/** The SLA durations of bench/feature-costs.mjs's config, by severity rank, in days. */
const SLA_DAYS = [365, 180, 90, 30, 7];
const SLA_START = Date.now();
const DAY = 86_400_000;
/** The config's managed label (the default) and a group's default title: what the parent's hash covers. */
const MANAGED_LABEL = "threatbridge";
const groupTitle = compileGroupTitle(DEFAULT_GROUP_TITLE);
/** A default `min_members` (config/workflow.ts): a group with fewer open members gets no parent. */
const MIN_MEMBERS = 2;
/** GitHub's id of an issue, as the stand-in would number it (any positive integer the engine keeps). */
const issueId = (number) => 10_000_000 + number;
/** config `fields.threat`'s defaults (config/schema.ts). */
const THREAT_FIELDS = {
  title: "name",
  severity: "severity",
  module: "module",
  asset_id: "asset_id",
  age: "age_days",
  description: "description",
};

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
    if (values.slices) {
      // The two conversation features' slices as they leave a synced threat (features/notes/slice.ts:
      // the hash of the section written; features/project/slice.ts: the issue, its item, a field's hash).
      // Made by the features' own hashes of per-threat text, so that they compress on disk as much
      // as real ones do (a sha256 prefix does not; a repeated counter would, about tenfold).
      records[t.id].slices = {
        notes: createHash("sha256").update(`section ${t.id}`).digest("base64url").slice(0, 16),
        project: encodeProjectSlice({
          k: `${repo}#${number}`,
          i: 1_000_000 + number,
          v: { Severity: valueHash(`${records[t.id].severity} ${t.id}`) },
        }),
      };
    }
  }
  const groups = groupsOf(records, latest, assets, repo, number);
  acceptancesOf(records);
  return {
    version: 1,
    cursors: { assets: null, threats: null },
    github: { since: { [repo]: new Date().toISOString() }, etags: [] },
    // The conversation features as a synced connector leaves them: the project's backfill done (the
    // project of bench/everything-on.mjs's --conversation), the comments read up to now.
    ...(values.slices
      ? {
          features: {
            project: { backfilled: "acme/1" },
            notes: { since: { [repo.toLowerCase()]: new Date().toISOString() } },
          },
        }
      : {}),
    assets,
    threats: records,
    queue: {},
    intents: {},
    retry: { threats: {}, assets: {} },
    seq: 0,
    lastCycle: null,
    ...(groups ? { groups } : {}),
  };
}

/**
 * Groups by asset over about --groups % of the mapped threats, in parent mode, as the group pass
 * leaves them (groups/membership.ts, plan-groups.ts, run-groups.ts): every member filed with its
 * title and severity, its issue's id known, attached to the parent (up to 100; `checklistOnly:
 * full` past that), and the parent's hash that of renderParent over the members as the state
 * holds them, so that planGroup finds neither an update, a state change nor an attach.
 */
function groupsOf(records, latest, assets, repo, lastNumber) {
  const pct = Number(values.groups);
  if (!(pct > 0)) return null;
  const byAsset = new Map();
  for (const t of latest.values()) {
    if (t.asset_id == null || !records[t.id]) continue;
    const list = byAsset.get(t.asset_id);
    if (list) list.push(t);
    else byAsset.set(t.asset_id, [t]);
  }
  const target = Math.round((Object.keys(records).length * pct) / 100);
  const groups = {};
  let grouped = 0;
  let number = lastNumber;
  for (const assetId of [...byAsset.keys()].sort()) {
    if (grouped >= target) break;
    const threats = byAsset.get(assetId);
    grouped += threats.length;
    const members = {};
    const views = [];
    for (const t of threats) {
      const record = records[t.id];
      record.issue = { ...record.issue, id: issueId(record.issue.number) };
      // As groups/membership.ts files it: the view's title (config `fields.threat`, defaults).
      const title = (toThreatView(t, THREAT_FIELDS).title ?? t.id).slice(0, 200);
      members[t.id] = { title, severity: record.severity };
      views.push({
        threatId: t.id,
        title,
        severity: record.severity,
        repo,
        number: record.issue.number,
        id: record.issue.id,
        state: record.issue.state,
        // As groups/plan-subject.ts gives it: what the SLA shows of the member (its due day).
        due: record.sla ? (slaShown(record.sla, Date.now()).dueDay ?? null) : null,
      });
    }
    const open = views.filter((v) => v.state === "open").length;
    const parents = {};
    if (open >= MIN_MEMBERS) {
      number += 1;
      const scope = { by: "asset", key: assetId, name: assets[assetId]?.name ?? null };
      const { hash } = renderParent(scope, views, { managedLabel: MANAGED_LABEL, title: groupTitle });
      const attached = [...views].sort((a, b) => a.number - b.number).slice(0, SUB_ISSUES_MAX);
      parents[repo] = {
        number,
        id: issueId(number),
        url: `${gh.url}/${repo}/issues/${number}`,
        state: "open",
        hash,
        attached: attached.map((v) => v.threatId),
        ...(views.length > SUB_ISSUES_MAX ? { checklistOnly: "full" } : {}),
      };
    }
    groups[groupIdOf("asset", assetId)] = { by: "asset", key: assetId, members, parents, mode: "parent" };
  }
  groupStats = { groups: Object.keys(groups).length, grouped };
  return groups;
}

/**
 * --accepted % of the mapped threats hold a risk acceptance, taken from those the platform holds
 * `accepted` (their issue closed): recorded and announced (features/acceptance/transitions.ts `riskAccepted`
 * then `stepCommented(…, "accept")`) a month ago, ending in two months: no warning or end is due.
 */
function acceptancesOf(records) {
  const pct = Number(values.accepted);
  if (!(pct > 0)) return;
  let wanted = Math.round((Object.keys(records).length * pct) / 100);
  const since = SLA_START - 30 * DAY;
  for (const record of Object.values(records)) {
    if (wanted === 0) break;
    if (record.status !== "accepted") continue;
    record.acceptance = {
      until: new Date(since + 90 * DAY).toISOString(),
      since: new Date(since).toISOString(),
      by: "bench-person",
      step: "announced",
    };
    acceptedCount += 1;
    wanted -= 1;
  }
}

let groupStats = { groups: 0, grouped: 0 };
let acceptedCount = 0;
let mapped = 0;
let stateBytes = 0;
let alsoStateBytes;
if (values.state) {
  const state = await v1State();
  mapped = Object.keys(state.threats).length;
  stateBytes = await seedStore(values.state, state, values["state-dist"]);
  if (values["also-state"]) {
    if (!values["also-dist"]) throw new Error("--also-state needs --also-dist DIR (a built dist/)");
    alsoStateBytes = await seedStore(values["also-state"], state, values["also-dist"]);
  }
}
// The far sides' request counters, for a caller in another process (bench/everything-on.mjs).
let countersUrl;
let counters;
if (values.counters) {
  counters = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ github: gh.counters(), platform: sim.sim.stats() }));
  });
  await new Promise((resolve) => counters.listen(0, "127.0.0.1", resolve));
  countersUrl = `http://127.0.0.1:${counters.address().port}`;
}
process.stdout.write(
  `${JSON.stringify({
    platformUrl: sim.url,
    githubUrl: gh.url,
    threats,
    mapped,
    stateBytes,
    ...(alsoStateBytes !== undefined ? { alsoStateBytes } : {}),
    ...(values.groups !== "0" ? groupStats : {}),
    ...(values.accepted !== "0" ? { accepted: acceptedCount } : {}),
    ...(countersUrl ? { countersUrl } : {}),
  })}\n`,
);
const stop = async () => {
  counters?.close();
  await Promise.allSettled([sim.close(), gh.close()]);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
