import type { ProbeResult } from "../observability/index.js";
import { stoppedText } from "../sync/index.js";
import type { DaemonStatus } from "./daemon.js";

/** What `/healthz` and `/readyz` answer: a verdict and a small JSON body saying why. */
export type Probe = ProbeResult;

/** Readiness allows this many schedule periods since the last good cycle (a slow or failed one or two). */
const STALE_PERIODS = 3;
/** …but never less than this, so that a seconds-level schedule does not flap. */
const MIN_STALE_MS = 60_000;

/** Live while the loop runs: the process answers and has not begun to shut down. */
export function liveness(status: DaemonStatus): Probe {
  const ok = status.phase === "starting" || status.phase === "running";
  return { ok, body: { status: ok ? "ok" : status.phase } };
}

/** Ready once a recent cycle succeeded (within about three periods) and no stream is stopped. */
export function readiness(status: DaemonStatus, now: number): Probe {
  const base = {
    cycles_ok: status.cycles.ok,
    cycles_failed: status.cycles.failed,
    last_cycle_ok: status.lastCycle?.ok ?? null,
    last_cycle_error: status.lastCycle?.error ?? null,
  };
  if (status.phase !== "running") {
    return { ok: false, body: { status: "not ready", reason: `the daemon is ${status.phase}`, ...base } };
  }
  // A stream stopped by a refused cursor stays unread until rewound: the connector is not doing its job.
  const stopped = status.streamsStopped[0];
  if (stopped !== undefined) {
    return {
      ok: false,
      body: {
        status: "not ready",
        reason: stoppedText(stopped.stream, stopped),
        streams_stopped: status.streamsStopped.map((s) => s.stream),
        ...base,
      },
    };
  }
  if (status.lastOkAt === null) {
    const reason = status.lastCycle
      ? "no cycle has completed successfully yet"
      : "the first cycle has not completed yet";
    return { ok: false, body: { status: "not ready", reason, ...base } };
  }
  const limitMs = Math.max(MIN_STALE_MS, STALE_PERIODS * status.periodMs);
  const ageMs = Math.max(0, now - status.lastOkAt);
  const lastOk = new Date(status.lastOkAt).toISOString();
  if (ageMs > limitMs) {
    return {
      ok: false,
      body: {
        status: "not ready",
        reason: `the last successful cycle finished at ${lastOk}, more than ${Math.round(limitMs / 1000)} s ago`,
        last_ok_at: lastOk,
        ...base,
      },
    };
  }
  return { ok: true, body: { status: "ready", last_ok_at: lastOk, ...base } };
}
