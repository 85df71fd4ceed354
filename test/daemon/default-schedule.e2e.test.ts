import { afterEach, describe, expect, it } from "vitest";
import {
  eligibleIds,
  firstSeenStatuses,
  get,
  HEALTH_ANY_PORT,
  REPO,
  startWorld,
  type World,
} from "../e2e/world.js";

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

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("run with the default schedule (every 15 s)", () => {
  it("a new critical threat that appears just after a poll has its issue within one poll", async () => {
    world = await startWorld({ threats: 12, assets: 4 }, HEALTH_ANY_PORT);
    const w = world;
    const wanted = eligibleIds(w, firstSeenStatuses(w)).length;
    const running = await w.startRun();
    const { base } = running;
    await running.until(() => w.gh.issues(REPO).length === wanted, "the backlog's issues", 30_000);

    // The threat appears right after a poll finished, so only the next poll can see it.
    let cycles = 0;
    const cycled = async (): Promise<number> => {
      const text = (await get(`${base}/metrics`))?.text ?? "";
      return sample(text, 'threatbridge_cycles_total{outcome="ok"}') ?? 0;
    };
    const seen = await cycled();
    await running.until(
      async () => (cycles = await cycled()) > seen,
      "a scheduled poll",
      (POLL_S + 2) * 1000,
    );
    expect(cycles).toBe(seen + 1);
    const threat = w.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    const marker = `<!-- threatbridge:threat=${threat.id} -->`;
    await running.until(
      () => w.gh.issues(REPO).some((i) => (i.body ?? "").includes(marker)),
      "the new threat's issue, within one poll",
      (POLL_S + 1) * 1000,
    );

    // /metrics: the schedule's period, and the interval the polls actually kept (two ticks apart).
    const metrics = (await get(`${base}/metrics`))?.text ?? "";
    expect(sample(metrics, "threatbridge_schedule_period_seconds")).toBe(POLL_S);
    expect(sample(metrics, "threatbridge_poll_interval_seconds")).toBeGreaterThan(POLL_S - 1);
    expect(sample(metrics, "threatbridge_poll_interval_seconds")).toBeLessThan(POLL_S + 1);

    const stopped = await running.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
  }, 90_000);
});
