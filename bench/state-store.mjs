// The state store at scale: for 1k, 100k and 300k mapped threats (generated),
// the median time of a durable commit of one intent, the size on disk, the load time at start and
// the peak RSS of a process that loads the state and commits, for today's store (one atomic
// full-file write per save) and the journaled store (snapshot + fsynced journal), in one run.
// Each figure comes from a fresh child process (generation happens in another one, so it does not
// count towards the peak RSS). Usage: node bench/state-store.mjs [sizes, e.g. 1000,100000,300000]
// [kinds, default engine,journaled; "today" adds the old full-file store, no longer used].
// "engine" is the path the engine uses now: a VERSION-1 state converted by the
// CLI's own openEngineState (dist/cli/state-open.js), then each intent written through the
// engine's update functions (putIntent + nextSeq on a createStateContext) and committed as the
// engine's `persist` does: commitOf(state, changes) handed to openEngineState's persist
// (commitToStore: one fsynced journal line of exactly what changed).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { openEngineState } from "../dist/cli/state-open.js";
import { emptyState, openJournaledStore, openStateStore } from "../dist/state/index.js";
import { commitOf, emptyDirty } from "../dist/sync/records/state-changes.js";
import { createStateContext, nextSeq, putIntent } from "../dist/sync/records/state-updates.js";

const SIZES = (process.argv[2] ?? "1000,100000,300000").split(",").map(Number);
const KINDS = (process.argv[3] ?? "engine,journaled").split(",");
const REPOS = ["acme-corp/security-findings", "acme-corp/infra-threats", "acme-corp/leaked-credentials"];

/** A mapped threat as today's state holds it (schema.ts ThreatRecord). */
function v1Threat(i) {
  const repo = REPOS[i % REPOS.length];
  const number = 1_000 + i;
  return {
    status: i % 9 === 0 ? "fixed" : "open",
    severity: i % 5,
    assetId: randomUUID(),
    updatedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    position: String(10_000_000 + i),
    gone: false,
    issue: {
      repo,
      number,
      url: `https://github.com/${repo}/issues/${number}`,
      state: i % 9 === 0 ? "closed" : "open",
      hash: randomUUID().replace(/-/g, ""),
    },
    link: `${repo}#${number}`,
  };
}

/** The mapped record the journaled store is meant for: no updatedAt/position/gone. */
function mappedThreat(i) {
  const { updatedAt: _u, position: _p, gone: _g, ...kept } = v1Threat(i);
  return kept;
}

function intent(k) {
  return {
    id: `i-${k}`,
    kind: "create",
    threatId: randomUUID(),
    repo: REPOS[0],
    startedAt: new Date().toISOString(),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function generate(kind, size, path) {
  if (kind === "today" || kind === "engine") {
    const store = await openStateStore(path);
    store.data = emptyState();
    for (let i = 0; i < size; i++) store.data.threats[randomUUID()] = v1Threat(i);
    await store.write();
    if (kind === "today") return;
    // The engine's first open converts the VERSION-1 file (README-store.md, "Migration"); done
    // here so that the measured start is the engine's second one, as on a running deployment.
    const opened = await openEngineState(path);
    await opened.close();
    return;
  }
  const store = await openJournaledStore(path);
  for (let i = 0; i < size; i++)
    store.set("threats", randomUUID(), kind === "journaled" ? mappedThreat(i) : v1Threat(i));
  await store.commit();
  await store.compact();
  await store.close();
}

async function measure(kind, size, path) {
  // Today's store takes seconds per save at 300k: fewer samples there.
  const commits = kind === "today" ? (size >= 100_000 ? 5 : 31) : 201;
  const times = [];
  let loadMs;
  let loadCpuMs;
  const cpuBefore = process.cpuUsage();
  const cpuSince = () => {
    const used = process.cpuUsage(cpuBefore);
    return (used.user + used.system) / 1000;
  };
  if (kind === "engine") {
    const started = performance.now();
    const opened = await openEngineState(path);
    const ctx = createStateContext(opened.state);
    loadMs = performance.now() - started;
    loadCpuMs = cpuSince();
    for (let k = 0; k < commits; k++) {
      const t = performance.now();
      putIntent(ctx, { ...intent(k), id: `i-${nextSeq(ctx)}` });
      // As src/sync/context.ts persist(): the commit of what changed, the dirty set cleared.
      const commit = commitOf(ctx.state, ctx.changes);
      ctx.changes = emptyDirty();
      await opened.persist(commit);
      times.push(performance.now() - t);
    }
    await opened.close();
  } else if (kind === "today") {
    const started = performance.now();
    const store = await openStateStore(path);
    loadMs = performance.now() - started;
    loadCpuMs = cpuSince();
    for (let k = 0; k < commits; k++) {
      const t = performance.now();
      store.data.intents[`i-${k}`] = intent(k);
      await store.write();
      times.push(performance.now() - t);
    }
  } else {
    const started = performance.now();
    const store = await openJournaledStore(path);
    loadMs = performance.now() - started;
    loadCpuMs = cpuSince();
    for (let k = 0; k < commits; k++) {
      const t = performance.now();
      store.set("intents", `i-${k}`, intent(k));
      await store.commit();
      times.push(performance.now() - t);
    }
    await store.close();
  }
  const dir = join(path, "..");
  const bytes = readdirSync(dir)
    .filter((name) => name.startsWith("state.json") && !name.endsWith(".bak"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  return {
    commitMs: median(times),
    loadMs,
    loadCpuMs,
    bytes,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

const [mode, kind, size, path] = process.argv.slice(2);
if (mode === "--generate") {
  await generate(kind, Number(size), path);
} else if (mode === "--measure") {
  process.stdout.write(JSON.stringify(await measure(kind, Number(size), path)));
} else {
  const labels = {
    engine: "engine path: v1 state converted by openEngineState, putIntent + persist (commitToStore)",
    today: "old store (full-file write per save; no longer used by the engine)",
    journaled: "journaled store alone (openJournaledStore set + commit)",
    "journaled-v1": "journaled store alone, records as migrated from v1",
  };
  const kinds = KINDS.map((k) => [k, labels[k] ?? k]);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  console.log(
    `\nstate store — ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}, load average ${load}\n`,
  );
  console.log(
    "| store | mapped threats | durable commit of one intent (median) | on disk | load at start (wall / CPU) | peak RSS (load + commits) |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const n of SIZES) {
    for (const [k, label] of kinds) {
      const dir = mkdtempSync(join(os.tmpdir(), "threatbridge-bench-store-"));
      try {
        const file = join(dir, "state.json");
        const self = new URL(import.meta.url).pathname;
        execFileSync(process.execPath, [self, "--generate", k, String(n), file], { stdio: "inherit" });
        const out = execFileSync(process.execPath, [self, "--measure", k, String(n), file]);
        const r = JSON.parse(out.toString());
        console.log(
          `| ${label} | ${n.toLocaleString("en")} | ${r.commitMs.toFixed(2)} ms | ${(r.bytes / 1e6).toFixed(2)} MB | ${Math.round(r.loadMs)} ms / ${Math.round(r.loadCpuMs)} ms | ${Math.round(r.peakRssMb)} MB |`,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
}
