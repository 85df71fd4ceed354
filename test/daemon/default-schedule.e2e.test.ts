import { afterEach, describe, expect, it } from "vitest";
import { eligibleIds, firstSeenStatuses, freePort, get, REPO, startWorld, type World } from "../e2e/world.js";
import { until } from "./daemon-world.js";

/**
 * Contract: `schedule` defaults to every 15 s, so a new threat's issue appears within one poll.
 * The BUILT CLI's `run` with no `schedule` key, against the simulator and the GitHub stand-in.
 * The threat appears just after a poll read the stream (the worst moment): its issue must exist
 * before the poll after next would have come. The wait is bounded, not measured (bench/ measures).
 */

const POLL_S = 15;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Waits until an async `check()` holds, polling every 20 ms; fails after `limitMs` (a bound). */
async function untilAsync(check: () => Promise<boolean>, what: string, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("run with the default schedule (every 15 s)", () => {
  it("a new critical threat that appears just after a poll has its issue within one poll", async () => {
    const port = await freePort();
    world = await startWorld({ threats: 12, assets: 4 }, `health: { port: ${port}, host: 127.0.0.1 }\n`);
    const w = world;
    const wanted = eligibleIds(w, firstSeenStatuses(w)).length;
    const child = w.spawnCli(["run", "-c", w.configPath]);
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await until(() => w.gh.issues(REPO).length === wanted, "the backlog's issues", 30_000);

    // The threat appears right after a poll finished, so only the next poll can see it.
    const base = `http://127.0.0.1:${port}`;
    let cycles = 0;
    const cycled = async (): Promise<number> => {
      const text = (await get(`${base}/metrics`))?.text ?? "";
      return sample(text, 'threatbridge_cycles_total{outcome="ok"}') ?? 0;
    };
    const seen = await cycled();
    await untilAsync(async () => (cycles = await cycled()) > seen, "a scheduled poll", (POLL_S + 2) * 1000);
    expect(cycles).toBe(seen + 1);
    const threat = w.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    const marker = `<!-- threatbridge:threat=${threat.id} -->`;
    await until(
      () => w.gh.issues(REPO).some((i) => (i.body ?? "").includes(marker)),
      "the new threat's issue, within one poll",
      (POLL_S + 1) * 1000,
    );

    // /metrics: the schedule's period, and the interval the polls actually kept (two ticks apart).
    const metrics = (await get(`${base}/metrics`))?.text ?? "";
    expect(sample(metrics, "threatbridge_schedule_period_seconds")).toBe(POLL_S);
    expect(sample(metrics, "threatbridge_poll_interval_seconds")).toBeGreaterThan(POLL_S - 1);
    expect(sample(metrics, "threatbridge_poll_interval_seconds")).toBeLessThan(POLL_S + 1);

    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    try {
      expect(await exited, stderr).toBe(0);
    } finally {
      clearTimeout(timer);
    }
  }, 90_000);
});
