// The engine's intake of a 100,000-threat backfill: both streams read, every threat planned and
// queued, the state committed to the real state store through the CLI's own openEngineState, as
// `sync` does; no GitHub writes (the queue is left for the budget). Prints time,
// peak RSS and the size of the state's files.
// Usage: node bench/engine-backfill.mjs [threats]
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema } from "../dist/config/index.js";
import { createGitHub } from "../dist/github/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { openEngineState } from "../dist/cli/state-open.js";
import { createContext, persist, queueSummary, runCycle } from "../dist/sync/index.js";
import { platformClient, startSimulatorProcess } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 100_000);

const sim = await startSimulatorProcess(["--threats", String(THREATS), "--assets", "5000", "--seed", "4"]);
const url = sim.url;
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"] });
const dir = await mkdtemp(join(tmpdir(), "threatbridge-bench-"));
try {
  const config = ConfigSchema.parse({
    platform: {
      base_url: url,
      token_url: `${url}/oauth/token`,
      client_id: "threatbridge",
      client_secret: "threatbridge-secret",
    },
    github: { api_url: gh.url, token: "ghp_bench", repository: "acme/security-threats" },
    state: { path: join(dir, "state.json") },
  });
  const platform = platformClient(url);
  const github = createGitHub({
    apiUrl: gh.url,
    auth: { token: "ghp_bench" },
    writeBudget: { perMinute: 80, perHour: 500, minIntervalMs: 1000 },
  });
  const opened = await openEngineState(config.state.path);
  const ctx = createContext(
    {
      config,
      platform,
      github,
      logger: silentLogger,
      clock: { now: () => Date.now() },
      persist: opened.persist,
    },
    opened.state,
  );
  const started = performance.now();
  const report = await runCycle(ctx, { skipDrain: true });
  const seconds = (performance.now() - started) / 1000;
  // The last commit, as `sync` makes it after the cycle (nothing when nothing changed).
  const writeStarted = performance.now();
  await persist(ctx);
  const writeSeconds = (performance.now() - writeStarted) / 1000;
  // Read before the close: the state's rows live in the database, not in this process.
  const queue = queueSummary(ctx.state);
  await opened.close();
  let stateBytes = 0;
  for (const name of await readdir(dir))
    if (name.startsWith("state") && !name.endsWith(".lock")) stateBytes += (await stat(join(dir, name))).size;
  globalThis.gc?.();
  const liveHeapMb = Math.round(process.memoryUsage().heapUsed / 1048576);
  console.log(
    JSON.stringify(
      {
        bench: "engine-backfill",
        threats: THREATS,
        ok: report.ok,
        seconds: Number(seconds.toFixed(2)),
        threatsPerSecond: Math.round(THREATS / seconds),
        queued: queue.total,
        queuedByAction: queue.byAction,
        stateFilesMb: Number((stateBytes / 1048576).toFixed(1)),
        lastCommitSeconds: Number(writeSeconds.toFixed(3)),
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
        liveHeapAfterGcMb: liveHeapMb,
        githubWrites: gh.counters().writes,
      },
      null,
      2,
    ),
  );
  await platform.close();
} finally {
  sim.stop();
  await gh.close();
  await rm(dir, { recursive: true, force: true });
}
