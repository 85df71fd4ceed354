import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/observability/index.js";
import { applyRewind, formatStatus, planRewind, runCycle, summarize } from "../../../src/sync/index.js";
import { persist } from "../../../src/sync/context.js";
import { setMeta } from "../../../src/sync/records/state-updates.js";
import { rewindStream, STOPPED_REMINDER_MS } from "../../../src/sync/intake/stream-stops.js";
import { ASSET, Harness, REPO, threatId } from "../harness.js";

/**
 * Spec "Common list behaviour" rule 5: a corrupted, truncated or hand-built cursor answers 400
 * `request/invalid-cursor`, and a cursor does not expire, so sending it again gets the same answer.
 * Contract (`rewind`): such a cursor stops its stream with a clear error, never retried in a loop,
 * until `threatbridge rewind` forgets it; the other stream and GitHub's side go on.
 */

const T1 = threatId(1);
const T2 = threatId(2);

function captureLogs(h: Harness): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  h.ctx.logger = createLogger({
    level: "warn",
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString().split("\n").filter(Boolean)) {
          lines.push(JSON.parse(text) as Record<string, unknown>);
        }
        done();
      },
    }),
  });
  return lines;
}

/** A state whose threat cursor this platform never issued (restored from another installation). */
async function withBogusThreatCursor(h: Harness): Promise<void> {
  setMeta(h.ctx, "cursors", { ...h.ctx.state.cursors, threats: "another-installations-cursor" });
  await persist(h.ctx);
}

const stopped = (lines: Array<Record<string, unknown>>) =>
  lines.filter((l) => String(l["msg"]).includes("the threats stream is stopped"));

describe("a stream cursor the platform refuses (request/invalid-cursor)", () => {
  it("list rule 5: the refused cursor is sent once, recorded with the platform's words, and not sent again cycle after cycle", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await withBogusThreatCursor(h);
    const logs = captureLogs(h);
    const before = h.platform.streamRequests.threats;

    const first = await h.cycle();
    expect(h.platform.streamRequests.threats).toBe(before + 1);
    expect(first.ok).toBe(true);
    expect(first.streamsStopped).toEqual([
      {
        stream: "threats",
        at: expect.any(String),
        detail: expect.stringContaining("the cursor is not valid"),
      },
    ]);
    // Durable: a restart still knows the stream is stopped, and does not send the cursor again.
    h.restart();
    const logsAfterRestart = captureLogs(h);
    for (let i = 0; i < 8; i += 1) await h.cycle();
    expect(h.platform.streamRequests.threats).toBe(before + 1);
    expect(h.ctx.state.cursors.threats).toBe("another-installations-cursor");

    // One error line when it happened; one more when the restarted process first skips it; no more.
    expect(stopped(logs)).toHaveLength(1);
    expect(stopped(logs)[0]).toMatchObject({ level: "error", stream: "threats" });
    expect(String(stopped(logs)[0]?.["msg"])).toContain("`threatbridge rewind --threats`");
    expect(stopped(logsAfterRestart)).toHaveLength(1);
    // …and a reminder at most once an hour.
    h.clockOffsetMs += STOPPED_REMINDER_MS;
    await h.cycle();
    await h.cycle();
    expect(stopped(logsAfterRestart)).toHaveLength(2);
    expect(stopped(logsAfterRestart)[1]).toMatchObject({ level: "warn" });
    expect(h.platform.streamRequests.threats).toBe(before + 1);
  });

  it("while the threat stream is stopped, the asset stream is read and a person's close still becomes a verdict", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    await withBogusThreatCursor(h);
    await h.cycle();
    const assets = h.platform.streamRequests.assets;
    h.github.personSets(REPO, 1, "closed", "alice");
    await h.cycle();
    expect(h.platform.streamRequests.assets).toBe(assets + 1);
    expect(h.platform.threats.get(T1)?.status).toBe("solved");
  });

  it("status shows the stopped stream, when and why, and the command that clears it", async () => {
    const h = new Harness();
    await h.settle();
    await withBogusThreatCursor(h);
    await h.cycle();
    const report = summarize({
      state: h.ctx.state,
      nowMs: Date.now(),
      budget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
      lock: { held: false },
    });
    expect(report.streamsStopped).toEqual([
      {
        stream: "threats",
        at: expect.any(String),
        detail: expect.stringContaining("request/invalid-cursor"),
      },
    ]);
    const text = formatStatus(report, Date.now());
    expect(text).toMatch(
      /^stopped: {4}the threats stream is stopped: the platform refused its saved cursor/m,
    );
    expect(text).toContain("run `threatbridge rewind --threats`");
  });

  it("rewind forgets the cursor and the stop: the next cycle reads from the start, and threats already mapped cost zero GitHub writes", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    h.platform.put({ id: T2, severity: "critical" });
    await h.settle();
    await withBogusThreatCursor(h);
    await h.cycle();
    const plan = planRewind(h.ctx.state, new Set(["threats"]));
    expect(plan).toEqual([
      { stream: "threats", cursor: "another-installations-cursor", refused: expect.any(Object) },
    ]);
    const commit = applyRewind(h.ctx.state, plan);
    expect(commit?.meta.map((m) => m.key).sort()).toEqual(["cursorRefused", "cursors"]);
    // The same change on the engine's own state, as the next process would open it.
    rewindStream(h.ctx, "threats");
    await persist(h.ctx);
    h.restart();
    const writes = h.github.writes;
    const walks = h.platform.streamRequests.threats;
    const report = await h.cycle();
    expect(report.streamsStopped).toBeUndefined();
    expect(h.platform.streamRequests.threats).toBe(walks + 1);
    expect(report.counters["threats_read"]).toBeGreaterThanOrEqual(2);
    expect(h.github.writes).toBe(writes);
    expect(h.issues()).toHaveLength(2);
  });

  it("applyRewind on the engine's own state clears exactly the stream asked; the other stream's stop stays", async () => {
    const h = new Harness();
    await h.settle();
    setMeta(h.ctx, "cursors", { assets: "bad-assets", threats: "bad-threats" });
    await persist(h.ctx);
    await h.cycle();
    expect(h.ctx.state.cursorRefused).toEqual({ assets: expect.any(Object), threats: expect.any(Object) });
    const commit = applyRewind(h.ctx.state, planRewind(h.ctx.state, new Set(["assets"])));
    const meta = new Map(commit?.meta.map((m) => [m.key, m.value]));
    expect(meta.get("cursors")).toEqual({ assets: null, threats: "bad-threats" });
    expect(meta.get("cursorRefused")).toEqual({ threats: expect.any(Object) });
    // Nothing to forget: no commit at all.
    const fresh = new Harness();
    expect(
      applyRewind(fresh.ctx.state, planRewind(fresh.ctx.state, new Set(["threats", "assets"]))),
    ).toBeNull();
  });

  it("reconcile reads the threats from the start, so it ends a threat stream's stop too", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, asset_id: ASSET });
    await h.settle();
    await withBogusThreatCursor(h);
    await h.cycle();
    const report = await runCycle(h.ctx, { reconcile: true });
    expect(report.streamsStopped).toBeUndefined();
    expect(h.ctx.state.cursorRefused).toBeUndefined();
    expect(h.ctx.state.cursors.threats).not.toBe("another-installations-cursor");
  });
});
