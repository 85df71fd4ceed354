// The state store at scale: for 1k, 100k and 300k mapped threats (generated), the median time of
// a durable commit of one intent, the size on disk, the load time at start and the peak RSS of a
// process that loads the state and commits, on the engine's path: the state opened by the CLI's
// own openEngineState (dist/cli/state-open.js), each intent written through the engine's update
// functions (putIntent + nextSeq on a createStateContext) and committed as the engine's `persist`
// does: commitOf(state, changes) handed to openEngineState's persist (one SQLite transaction).
// Each figure comes from a fresh child process (generation happens in another one, so it does not
// count towards the peak RSS). Usage: node bench/state-store.mjs [sizes, e.g. 1000,100000,300000]
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { openEngineState } from "../dist/cli/state-open.js";
import { emptyState } from "../dist/sync/schema.js";
import { commitOf, emptyDirty } from "../dist/sync/records/state-changes.js";
import { createStateContext, nextSeq, putIntent } from "../dist/sync/records/state-updates.js";
import { seedStore } from "./store-seed.mjs";

const SIZES = (process.argv[2] ?? "1000,100000,300000").split(",").map(Number);
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

async function generate(size, path) {
  const state = emptyState();
  for (let i = 0; i < size; i++) state.threats[randomUUID()] = v1Threat(i);
  await seedStore(path, state);
}

async function measure(size, path) {
  const commits = 201;
  const times = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const opened = await openEngineState(path);
  const ctx = createStateContext(opened.state);
  const loadMs = performance.now() - started;
  const used = process.cpuUsage(cpuBefore);
  const loadCpuMs = (used.user + used.system) / 1000;
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
  const dir = join(path, "..");
  const bytes = readdirSync(dir)
    .filter((name) => name === "state.json" || name.startsWith("state.db"))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
  return {
    commitMs: median(times),
    loadMs,
    loadCpuMs,
    bytes,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

const [mode, size, path] = process.argv.slice(2);
if (mode === "--generate") {
  await generate(Number(size), path);
} else if (mode === "--measure") {
  process.stdout.write(JSON.stringify(await measure(Number(size), path)));
} else {
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
    {
      const label = "engine path: openEngineState, putIntent + persist (one SQLite transaction)";
      const dir = mkdtempSync(join(os.tmpdir(), "threatbridge-bench-store-"));
      try {
        const file = join(dir, "state.json");
        const self = new URL(import.meta.url).pathname;
        execFileSync(process.execPath, [self, "--generate", String(n), file], { stdio: "inherit" });
        const out = execFileSync(process.execPath, [self, "--measure", String(n), file]);
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
