import { describe, expect, it } from "vitest";
import { liveness, readiness, type DaemonStatus } from "../../src/daemon/index.js";

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1);

function status(over: Partial<DaemonStatus> = {}): DaemonStatus {
  return {
    phase: "running",
    cycles: { ok: 0, failed: 0 },
    cycleRunning: false,
    lastCycle: null,
    lastOkAt: null,
    periodMs: 5 * MINUTE,
    poll: { intervalMs: null, skipped: { retry_after: 0, busy: 0 } },
    streamsStopped: [],
    ...over,
  };
}

describe("health probes of run", () => {
  it("/healthz is ok while the loop runs and not once it is stopping", () => {
    expect(liveness(status()).ok).toBe(true);
    expect(liveness(status({ phase: "starting" })).ok).toBe(true);
    expect(liveness(status({ phase: "stopping" }))).toEqual({ ok: false, body: { status: "stopping" } });
  });

  it("/readyz is not ready before the first cycle has completed, and says so", () => {
    const probe = readiness(status({ cycleRunning: true }), T0);
    expect(probe.ok).toBe(false);
    expect(probe.body["reason"]).toBe("the first cycle has not completed yet");
  });

  it("/readyz is not ready while no cycle has succeeded, and names the last error", () => {
    const probe = readiness(
      status({
        cycles: { ok: 0, failed: 2 },
        lastCycle: { ok: false, finishedAt: T0, durationMs: 5, error: "token endpoint answered 401" },
      }),
      T0,
    );
    expect(probe.ok).toBe(false);
    expect(probe.body).toMatchObject({
      reason: "no cycle has completed successfully yet",
      last_cycle_error: "token endpoint answered 401",
    });
  });

  it("/readyz is ready after a good cycle, until about three schedule periods pass without another", () => {
    const ok = status({
      cycles: { ok: 1, failed: 0 },
      lastCycle: { ok: true, finishedAt: T0, durationMs: 5 },
      lastOkAt: T0,
    });
    expect(readiness(ok, T0 + MINUTE).ok).toBe(true);
    expect(readiness(ok, T0 + 15 * MINUTE).ok).toBe(true);
    const stale = readiness(ok, T0 + 15 * MINUTE + 1);
    expect(stale.ok).toBe(false);
    expect(String(stale.body["reason"])).toContain("more than 900 s ago");
  });

  it("/readyz allows at least a minute for schedules of a few seconds", () => {
    const ok = status({ periodMs: 5_000, cycles: { ok: 1, failed: 0 }, lastOkAt: T0 });
    expect(readiness(ok, T0 + 59_000).ok).toBe(true);
    expect(readiness(ok, T0 + 61_000).ok).toBe(false);
  });

  it("/readyz is not ready while a stream is stopped by a refused cursor, however well the cycles go, and says what to run", () => {
    const good = {
      cycles: { ok: 3, failed: 0 },
      lastCycle: { ok: true, finishedAt: T0, durationMs: 5 },
      lastOkAt: T0,
    };
    expect(readiness(status(good), T0 + MINUTE).ok).toBe(true);
    const refused = { at: "2026-01-01T00:00:00.000Z", detail: "400 request/invalid-cursor: bad signature" };
    const probe = readiness(
      status({ ...good, streamsStopped: [{ stream: "threats", ...refused }] }),
      T0 + MINUTE,
    );
    expect(probe.ok).toBe(false);
    expect(probe.body["streams_stopped"]).toEqual(["threats"]);
    expect(String(probe.body["reason"])).toContain("the threats stream is stopped");
    expect(String(probe.body["reason"])).toContain("bad signature");
    expect(String(probe.body["reason"])).toContain("`threatbridge rewind --threats`");
  });
});
