import { afterEach, describe, expect, it } from "vitest";
import { issueToken, json, startTinyPlatform, useTinyPlatform, type TinyPlatform } from "./tiny-platform.js";
import { REPO, startWorld, type World } from "./world.js";

/** Contract, "Logs go to stderr": JSON lines when stderr is not a terminal, `log.format` forces one. */

let world: World | undefined;
let platform: TinyPlatform | undefined;
afterEach(async () => {
  await platform?.close();
  await world?.close();
  platform = undefined;
  world = undefined;
});

/**
 * A platform whose API answers 500 to every request, with `Retry-After: 0`: the connector retries
 * until its retries run out (each logged), without back-off waits, then the sync fails.
 */
async function platformDown(w: World): Promise<TinyPlatform> {
  const down = await startTinyPlatform((req, res) => {
    if (req.url?.startsWith("/oauth/token")) return issueToken(res);
    json(
      res,
      500,
      { type: "about:blank", title: "Internal Server Error", status: 500 },
      { "retry-after": "0" },
    );
  });
  await useTinyPlatform(w, down.url);
  return down;
}

describe("logs of the built CLI", () => {
  it("stderr not a terminal: JSON lines with level names; a failed sync logs its failure once", async () => {
    world = await startWorld();
    platform = await platformDown(world);
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(1);
    // The API was asked again after its 500s: the failure logged once comes after the retries.
    expect(platform.requests.filter((r) => r.path.startsWith("/v1/")).length).toBeGreaterThan(1);
    const lines = result.stderr
      .split("\n")
      .filter(Boolean)
      .map((line): unknown => JSON.parse(line));
    const levels = lines.map((l) => (typeof l === "object" && l !== null && "level" in l ? l.level : null));
    expect(levels.every((level) => typeof level === "string")).toBe(true);
    expect(levels.filter((level) => level === "error")).toHaveLength(1);
  });

  it("log.format: pretty forces readable text, also when stderr is not a terminal", async () => {
    // The platform refuses the credentials: a failed sync at once, with no retries' back-off to
    // wait for (the test above shows a failure after retries is logged once).
    world = await startWorld({}, "log:\n  format: pretty\n", {
      env: { PLATFORM_CLIENT_SECRET: "not-the-secret" },
    });
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(1);
    const errorLines = result.stderr.split("\n").filter((line) => line.includes("ERROR"));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toContain("cycle failed");
    expect(result.stderr).not.toMatch(/^\{"level"/m);
  });

  it("pretty logs (a terminal's): one line per write, and a backfill's writes past the first few summarized by action", async () => {
    world = await startWorld({}, "log:\n  format: pretty\n");
    world.env["THREATBRIDGE_LOG_LEVEL"] = "info";
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(0);
    const made = world.gh.issues(REPO).length;
    expect(made).toBeGreaterThan(10);
    const writes = result.stderr.split("\n").filter((l) => / INFO: (create|link) /.test(l));
    // Each line names the action, the issue and the threat; no key of the record on lines below it.
    for (const line of writes)
      expect(line).toMatch(/INFO: (create|link) acme\/security-threats#\d+ \(threat [0-9a-f-]{36}\)$/);
    expect(result.stderr).not.toMatch(/^\s+audit: true$/m);
    const summaries = [
      ...result.stderr.matchAll(
        /… and (\d+) more writes in the last \d+ s: (.*) \(log\.format: json has a line for each\)/g,
      ),
    ];
    // Every create and link is either its own line or counted in a summary.
    const summarized = summaries.reduce((sum, m) => sum + Number(m[1]), 0);
    expect(writes.length + summarized).toBe(2 * made);
    expect(summarized).toBeGreaterThan(0);
  });
});
