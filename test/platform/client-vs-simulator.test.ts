import { afterEach, describe, expect, it } from "vitest";
import {
  PlatformProblem,
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
  type Threat,
} from "../../src/platform/index.js";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator/index.js";
import { rejection } from "./client-harness.js";

/**
 * The client against the real simulator over HTTP on 127.0.0.1, with faults on. The simulator
 * and the client share one hand-moved clock; the client's sleep moves it, so Retry-After waits,
 * empty-page waits and token lifetimes all pass instantly.
 */

const started: { sim: RunningSimulator; client: PlatformClient }[] = [];

afterEach(async () => {
  for (const { sim, client } of started.splice(0)) {
    await client.close();
    await sim.close();
  }
});

async function setup(
  simOpts: SimulatorOptions = {},
  clientOpts: Partial<PlatformClientOptions> = {},
): Promise<{
  sim: RunningSimulator;
  client: PlatformClient;
  sleeps: number[];
  clock: { advance(ms: number): void };
}> {
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const sim = await startSimulator({
    seed: 7,
    assets: 30,
    threats: 400,
    clock,
    asyncWriteDelayMs: 0,
    ...simOpts,
  });
  const sleeps: number[] = [];
  const client = createPlatformClient({
    baseUrl: sim.url,
    tokenUrl: `${sim.url}/oauth/token`,
    clientId: "threatbridge",
    clientSecret: "threatbridge-secret",
    tokenAuth: "client_secret_basic",
    pageLimit: 37,
    maxRetries: 10,
    clock,
    sleep: (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
      return Promise.resolve();
    },
    ...clientOpts,
  });
  started.push({ sim, client });
  return { sim, client, sleeps, clock };
}

/** Walks a stream to its end; de-duplicates on id, the last occurrence wins (list rule 3). */
async function walkAll(
  client: PlatformClient,
  cursor: string | null,
): Promise<{ latest: Map<string, Threat>; resume: string | null; seen: number; bad: number }> {
  const latest = new Map<string, Threat>();
  let resume = cursor;
  let seen = 0;
  let bad = 0;
  for await (const page of client.streamThreats(cursor)) {
    for (const item of page.items) {
      seen++;
      if (item.ok) latest.set(item.value.id, item.value);
      else bad++;
    }
    resume = page.resumeCursor;
  }
  return { latest, resume, seen, bad };
}

describe("platform client against the simulator", () => {
  it("list rules 3 and 4: a walk with 429s, 500s, duplicates and withheld changes loses nothing", async () => {
    const { sim, client, sleeps } = await setup();
    sim.sim.setFaults({ rate_429: 0.15, rate_500: 0.1, duplicate_rate: 0.3, withhold_recent_ms: 500 });
    // Changes made just now are withheld for 500 ms: the walk waits on empty pages for them.
    const fresh = [sim.sim.addThreat({ severity: "critical" }), sim.sim.addThreat({ name: "fresh one" })];
    const { latest, resume, seen, bad } = await walkAll(client, null);

    const expected = sim.sim.threatIds().filter((id) => sim.sim.getThreat(id) !== null);
    expect(sim.sim.state().visibleThreats).toBe(expected.length);
    expect(new Set(latest.keys())).toEqual(new Set(expected));
    for (const t of fresh) expect(latest.get(t.id)?.status).toBe(t.status);
    for (const [id, threat] of latest) expect(threat.status).toBe(sim.sim.getThreat(id)?.status);
    expect(bad).toBe(0);
    expect(seen).toBeGreaterThan(expected.length); // duplicates were delivered and collapsed
    expect(resume).not.toBeNull();
    expect(client.stats().retries).toBeGreaterThan(0);
    expect(sleeps).toContain(1000); // Retry-After: 1
    expect(sleeps).toContain(200); // empty page with a cursor: withheld changes
  });

  it("list rule 6 and PATCH rule 4: own writes come back when resuming from the saved cursor", async () => {
    const { sim, client } = await setup({ threats: 60 });
    const first = await walkAll(client, null);
    const [a, b, c] = [...first.latest.keys()];
    if (a === undefined || b === undefined || c === undefined)
      throw new Error("simulator gave too few threats");
    sim.sim.setFaults({ rate_429: 0.2, rate_500: 0.2, rate_500_after_write: 0.3 });

    const fp = await client.setStatus(a, "false_positive");
    expect(fp).toMatchObject({ id: a, status: "false_positive" });
    const accepted = await client.setStatus(b, "accepted", "owned by team blue");
    expect(accepted.status).toBe("accepted");
    await client.updateNote(c, "tracked in GitHub");
    await client.putExternalReference(c, "github", {
      external_id: "acme/sec#12",
      url: "https://github.test/acme/sec/issues/12",
    });
    sim.sim.settle();

    const read = await client.getThreat(c);
    expect(read?.external_references).toEqual([
      expect.objectContaining({
        system: "github",
        external_id: "acme/sec#12",
        url: "https://github.test/acme/sec/issues/12",
      }),
    ]);
    expect(read?.stream_position).toBeNull();
    expect(sim.sim.getThreat(c)).toMatchObject({ note: "tracked in GitHub" });

    sim.sim.setFaults({});
    const second = await walkAll(client, first.resume);
    expect(second.latest.get(a)?.status).toBe("false_positive");
    expect(second.latest.get(b)?.status).toBe("accepted");
    expect(second.latest.get(c)?.external_references.map((r) => r.system)).toEqual(["github"]);
  });

  it("PATCH rule 1: pending is refused with request/invalid-status-transition, never retried", async () => {
    const { sim, client } = await setup({ threats: 5 });
    const id = sim.sim.threatIds()[0] ?? "";
    const err = await rejection(
      client.setStatus(id, "pending" as never /* outside the type on purpose */),
      PlatformProblem,
    );
    expect(err).toMatchObject({ status: 400, type: "request/invalid-status-transition" });
    expect(err.requestId).toBeTruthy();
    const patches = Object.entries(sim.sim.stats().byRoute).filter(([route]) =>
      route.startsWith("PATCH /v1/threats/"),
    );
    expect(patches.map(([, n]) => n)).toEqual([1]);
  });

  it("service rule 1: an unknown threat reads as null; related assets of an unknown asset is resource/not-found", async () => {
    const { client } = await setup({ threats: 5 });
    const unknown = "00000000-0000-4000-8000-000000000001";
    expect(await client.getThreat(unknown)).toBeNull();
    expect(await client.getAsset(unknown)).toBeNull();
    const err = await rejection(
      (async () => {
        for await (const _ of client.relatedAssets(unknown)) break;
      })(),
      PlatformProblem,
    );
    expect(err.type).toBe("resource/not-found");
  });

  it("assets stream and related assets parse; a removed asset arrives as a tombstone", async () => {
    const { sim, client } = await setup({ threats: 20 });
    const assetIds = sim.sim.assetIds();
    const removed = assetIds[0] ?? "";
    const start: string | null = null;
    let resume: string | null = start;
    for await (const page of client.streamAssets(start)) resume = page.resumeCursor;
    sim.sim.removeAsset(removed);
    const after: { id: string; deleted: boolean }[] = [];
    for await (const page of client.streamAssets(resume)) {
      for (const item of page.items) if (item.ok) after.push(item.value);
    }
    expect(after).toContainEqual(expect.objectContaining({ id: removed, deleted: true }));
    const neighbours: string[] = [];
    for await (const page of client.relatedAssets(assetIds[1] ?? "")) {
      for (const item of page.items) if (item.ok) neighbours.push(item.value.id);
    }
    expect(neighbours).not.toContain(assetIds[1]);
  });

  it("Authentication 3: a 2 s token is renewed ahead of expiry; a revoked one costs one new token and one retry", async () => {
    const { sim, client, clock } = await setup(
      { threats: 5, tokenTtlSeconds: 2 },
      { tokenAuth: "client_secret_post" },
    );
    const id = sim.sim.threatIds()[0] ?? "";
    for (let i = 0; i < 6; i++) {
      expect((await client.getThreat(id))?.id).toBe(id);
      clock.advance(700);
    }
    // 4.2 s of simulated time with a 2 s token, renewed at 80 % of its life: never a 401.
    expect(sim.sim.stats().tokenRequests).toBeGreaterThanOrEqual(2);
    expect(client.stats().retries).toBe(0);
    await client.getThreat(id); // holds a fresh token now
    const tokensBefore = sim.sim.stats().tokenRequests;
    sim.sim.revokeTokens();
    expect((await client.getThreat(id))?.id).toBe(id);
    expect(sim.sim.stats().tokenRequests - tokensBefore).toBe(1);
    expect(client.stats().retries).toBe(1);
  });

  it("Authentication 5: a read-only client's write is 403 auth/insufficient-role, not retried", async () => {
    const { sim, client } = await setup(
      { threats: 5 },
      { clientId: "threatbridge-readonly", clientSecret: "threatbridge-readonly-secret" },
    );
    const id = sim.sim.threatIds()[0] ?? "";
    const err = await rejection(client.updateNote(id, "x"), PlatformProblem);
    expect(err).toMatchObject({ status: 403, type: "auth/insufficient-role" });
    expect(client.stats().retries).toBe(0);
    expect(JSON.stringify(err)).not.toContain("threatbridge-readonly-secret");
  });
});
