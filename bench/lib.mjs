// What the benchmarks share: the simulator in a process of its own (so that its memory and CPU do
// not count), a platform client for it, and the engine of the cost benchmarks.
import { spawn } from "node:child_process";
import { createGitHub } from "../dist/github/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { createPlatformClient } from "../dist/platform/index.js";
import { emptyState } from "../dist/sync/schema.js";
import { createContext } from "../dist/sync/index.js";

export async function startSimulatorProcess(args) {
  const child = spawn(process.execPath, ["dist/cli.js", "simulate", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`simulator exited: ${out}`)));
    setTimeout(() => reject(new Error("simulator did not start in 60 s")), 60_000).unref();
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

export function platformClient(url, extra = {}) {
  return createPlatformClient({
    baseUrl: url,
    tokenUrl: `${url}/oauth/token`,
    clientId: "threatbridge",
    clientSecret: "threatbridge-secret",
    tokenAuth: "client_secret_basic",
    ...extra,
  });
}

/**
 * The bare HTTP walk of the threat stream: the platform client alone, no engine, no state. The
 * yardstick of a no-change re-delivery (BENCHMARKS.md).
 */
export async function bareWalk(url) {
  const client = platformClient(url, { pageLimit: 500 });
  const seen = new Set();
  let items = 0;
  let peak = process.memoryUsage().rss;
  const started = performance.now();
  for await (const page of client.streamThreats(null)) {
    for (const item of page.items) {
      items += 1;
      if (item.ok) seen.add(item.value.id);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const seconds = (performance.now() - started) / 1000;
  const stats = client.stats();
  await client.close();
  return {
    unique: seen.size,
    delivered: items,
    seconds: Number(seconds.toFixed(2)),
    threatsPerSecond: Math.round(seen.size / seconds),
    peakRssMb: Math.round(peak / 1048576),
    requests: stats.requests,
    retries: stats.retries,
    tokenRequests: stats.tokenRequests,
  };
}

/**
 * The config of a cost benchmark: the simulator's client credentials, a GitHub stand-in's token and
 * no write pacing (the counts are the subject, not the budget's waits); `extra` adds settings.
 */
export function costsConfig({ simUrl, ghUrl, repository, token = "ghp_bench" }, extra = {}) {
  return {
    platform: {
      base_url: simUrl,
      token_url: `${simUrl}/oauth/token`,
      client_id: "threatbridge",
      client_secret: "threatbridge-secret",
    },
    github: {
      api_url: ghUrl,
      token,
      repository,
      write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 },
    },
    ...extra,
  };
}

/**
 * The engine of a cost benchmark, in this process: GitHub with the write budget off (its writes
 * are counted, not paced), sub-issues and milestones on, no state file (nothing persisted).
 */
export function costsEngine({ config, simUrl, ghUrl, token = "ghp_bench" }) {
  const clock = { now: () => Date.now() };
  const github = createGitHub({
    apiUrl: ghUrl,
    auth: { token },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
  });
  const ctx = createContext(
    {
      config,
      platform: platformClient(simUrl),
      github,
      workflow: github,
      // Projects and comments (the conversation back's features): the same client again.
      conversation: github,
      logger: silentLogger,
      clock,
      persist: null,
    },
    emptyState(),
  );
  return { github, ctx };
}

/**
 * `count` unsolved threats spread over the simulator's assets in turn (`Threat i`), each with
 * `extra(i)` added: the world of the cost benchmarks. Answers their ids in order.
 */
export function addThreats(sim, count, { severity = "high", name = "Threat", extra = () => ({}) } = {}) {
  const assets = sim.sim.assetIds();
  const ids = [];
  for (let i = 0; i < count; i += 1) {
    const threat = sim.sim.addThreat({
      status: "unsolved",
      severity,
      asset_id: assets[i % assets.length],
      name: `${name} ${i}`,
      ...extra(i),
    });
    ids.push(threat.id);
  }
  return ids;
}
