import { createServer } from "node:net";
import { describe, expect, it, type TestContext } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { issueToken, json, startTinyPlatform, useTinyPlatform, type TinyPlatform } from "./tiny-platform.js";
import { HEALTH_ANY_PORT, watch, worldFor, type Watched } from "./world.js";

/**
 * A total deadline per request, Retry-After honoured, an unreachable platform not blamed on
 * credentials: the built
 * CLI against a platform that hangs, trickles, rate-limits or is not there at all.
 */

/**
 * Each test has its own world and platform, closed when it ends. The three groups below run at the
 * same time, each group's tests one after another: the refused connection's test is mostly the
 * connector's back-off between retries, which the other groups' work fills.
 */
async function platformFor(t: TestContext, started: Promise<TinyPlatform>): Promise<TinyPlatform> {
  const p = await started;
  t.onTestFinished(() => p.close());
  return p;
}

/** A port of 127.0.0.1 that nothing listened on a moment ago: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A platform whose asset stream never answers (`hang`) or sends its body a byte every 1.5 s (`trickle`). */
async function stallingPlatform(t: TestContext, mode: "hang" | "trickle"): Promise<TinyPlatform> {
  const timers = new Set<NodeJS.Timeout>();
  t.onTestFinished(() => timers.forEach((timer) => clearInterval(timer)));
  return platformFor(
    t,
    startTinyPlatform((req, res) => {
      if (req.url?.startsWith("/oauth/token")) return issueToken(res);
      if (mode === "hang") return; // never answers: only the connector's own deadline or a stop ends it
      res.writeHead(200, { "content-type": "application/json" });
      const body = '{"assets": [], "pagination": {"next_cursor": null}}';
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < body.length) res.write(body[sent++]);
      }, 1500);
      timers.add(timer);
      res.on("close", () => clearInterval(timer));
    }),
  );
}

/** SIGTERM once the platform holds a stream request; answers how the child ended, SIGKILL after 10 s. */
async function stopWhileStalled(
  child: Watched,
  p: TinyPlatform,
): Promise<{ code: number | null; killed: boolean; stderr: string }> {
  await child.until(() => p.requests.some((r) => r.path === "/v1/assets"), "the asset stream request");
  // The contract's bound: exit within 10 s of SIGTERM whatever the network does (a Kubernetes grace period).
  return child.stop("SIGTERM", 10_000);
}

describe.concurrent("a platform read has a total deadline and a stop cuts it short", () => {
  for (const mode of ["hang", "trickle"] as const) {
    it.sequential(
      `sync exits after SIGTERM while the platform ${mode === "hang" ? "never answers" : "trickles a byte every 1.5 s"}, with the state saved`,
      async (t) => {
        const world = await worldFor(t);
        const platform = await stallingPlatform(t, mode);
        await useTinyPlatform(world, platform.url, "", mode === "trickle" ? "  timeout_ms: 2000" : "");
        const result = await stopWhileStalled(
          watch(world.spawnCli(["sync", "-c", world.configPath])),
          platform,
        );
        expect(result.killed, result.stderr).toBe(false);
        expect(result.code).not.toBeNull();
        expect(await readStoredState(world.statePath)).not.toBeNull();
      },
      40_000,
    );

    it.sequential(
      `run exits 0 after SIGTERM while the platform ${mode === "hang" ? "never answers" : "trickles"}, with the state saved`,
      async (t) => {
        const world = await worldFor(t);
        const platform = await stallingPlatform(t, mode);
        await useTinyPlatform(
          world,
          platform.url,
          `${HEALTH_ANY_PORT}schedule: "0 0 1 1 *"\n`,
          mode === "trickle" ? "  timeout_ms: 2000" : "",
        );
        const result = await stopWhileStalled(await world.startRun(), platform);
        expect(result.killed, result.stderr).toBe(false);
        expect(result.code, result.stderr).toBe(0);
        expect(await readStoredState(world.statePath)).not.toBeNull();
      },
      40_000,
    );
  }
});

describe.concurrent("a long Retry-After is honoured across processes (spec Errors rule 1)", () => {
  it.sequential(
    "after a 429 with Retry-After: 600, the second sync sends no request to the platform and says until when",
    async (t) => {
      const world = await worldFor(t);
      const platform = await platformFor(
        t,
        startTinyPlatform((req, res) => {
          if (req.url?.startsWith("/oauth/token")) return issueToken(res);
          json(
            res,
            429,
            { type: "about:blank", title: "Too Many Requests", status: 429 },
            { "retry-after": "600" },
          );
        }),
      );
      await useTinyPlatform(world, platform.url);
      const first = await world.cli(["sync", "-c", world.configPath]);
      expect(first.code).toBe(1);
      const asked = platform.requests.length;
      expect(asked).toBeGreaterThan(0);
      // The next cycle skips the platform's streams, says until when, and goes on with GitHub.
      const second = await world.cli(["sync", "-c", world.configPath]);
      expect(platform.requests.length).toBe(asked);
      expect(second.stdout).toMatch(/not to be called before \d{4}-\d\d-\d\dT/);
      const third = await world.cli(["sync", "-c", world.configPath, "--json"]);
      expect(platform.requests.length).toBe(asked);
      expect(JSON.parse(third.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({
        platform_not_before: expect.stringMatching(/^\d{4}-/),
      });
    },
  );
});

describe.concurrent("an unreachable platform is not blamed on credentials", () => {
  it("a refused connection to the token endpoint says network, refused, and not credentials", async (t) => {
    const world = await worldFor(t);
    const port = await closedPort();
    await useTinyPlatform(world, `http://127.0.0.1:${port}`, "", "  timeout_ms: 1000");
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(1);
    const text = `${result.stdout}${result.stderr}`;
    expect(text).toMatch(/connection was refused/);
    expect(text).toContain("not a credentials problem");
    expect(text).not.toContain("check platform.client_id");
    // The hint is said once: in the cycle's log line; the summary points there.
    expect(text.match(/not a credentials problem/g)).toHaveLength(1);
    expect(result.stdout).toMatch(/^error: .*ECONNREFUSED.* \(the log line above says what to check\)$/m);
  });
});
