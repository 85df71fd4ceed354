import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import {
  eligibleIds,
  firstSeenStatuses,
  get,
  HEALTH_ANY_PORT,
  REPO,
  startWorld,
  type World,
} from "../e2e/world.js";

/** `threatbridge run` as a user runs it: the BUILT CLI against the simulator and the GitHub stand-in. */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("threatbridge run (end to end)", () => {
  it("creates the issues, serves /healthz, /readyz and /metrics, refuses a second run, and exits 0 on SIGTERM", async () => {
    world = await startWorld({}, `${HEALTH_ANY_PORT}schedule: "0 0 1 1 *"\n`);
    const w = world;
    const firstSeen = firstSeenStatuses(w);
    const running = await w.startRun();
    const { base, child } = running;

    let ready: { status: number; text: string } | null = null;
    const wanted = eligibleIds(w, firstSeen).length;
    await running.until(() => w.gh.issues(REPO).length === wanted, "the issues to be created", 30_000);
    for (let i = 0; i < 100 && ready?.status !== 200; i += 1) {
      ready = await get(`${base}/readyz`);
      if (ready?.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ready?.status).toBe(200);
    expect((await get(`${base}/healthz`))?.status).toBe(200);
    expect((await get(`${base}/nope`))?.status).toBe(404);
    const metrics = await get(`${base}/metrics`);
    expect(metrics?.text).toMatch(/^threatbridge_cycles_total\{outcome="ok"\} 1$/m);
    expect(metrics?.text).toMatch(/^threatbridge_platform_token_requests_total 1$/m);
    // Which build answers: package.json's version; no THREATBRIDGE_REVISION here, so unknown.
    const pkg: unknown = JSON.parse(
      await readFile(resolve(import.meta.dirname, "../../package.json"), "utf8"),
    );
    const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? String(pkg.version) : "";
    expect(metrics?.text).toContain(
      `threatbridge_build_info{version="${version}",revision="unknown",node="${process.version}"} 1\n`,
    );
    // Requests by method and status: the streams were read with answered GETs.
    expect(metrics?.text).toMatch(
      /^threatbridge_platform_requests_total\{method="GET",status="200"\} [1-9]\d*$/m,
    );
    expect(metrics?.text).toMatch(
      /^threatbridge_github_requests_total\{method="POST",status="201"\} [1-9]\d*$/m,
    );

    // Contract: two processes never work on one state file.
    const second = await w.cli(["run", "-c", w.configPath], { timeoutMs: 20_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(String(child.pid));

    const stopped = await running.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    const state = await readStoredState(w.statePath);
    expect([...(state?.threats.values() ?? [])].filter((t) => t.issue).length).toBe(wanted);
    expect(await get(`${base}/healthz`)).toBeNull();
  }, 60_000);
});

describe("a run that cannot start (end to end)", () => {
  it("its health port held by another process: exit 1 naming health.port, and the wait for its start fails at once with its stderr", async () => {
    // A port this test holds for the whole test: nothing else can take it or free it meanwhile.
    const holder = createServer();
    await new Promise<void>((resolveListen) => holder.listen(0, "127.0.0.1", resolveListen));
    try {
      const address = holder.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      world = await startWorld({}, `health: { port: ${port}, host: 127.0.0.1 }\nschedule: "0 0 1 1 *"\n`);
      const started = Date.now();
      const failed = await world.startRun().then(
        () => null,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(failed).toMatch(/^the child exited \(1\) before run's start line:/);
      expect(failed).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(failed).toContain("set health.port to a free port");
      // Well before the start wait's 20 s: the exit ended it, not the timeout.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await new Promise<void>((resolveClose) => holder.close(() => resolveClose()));
    }
  }, 60_000);
});
