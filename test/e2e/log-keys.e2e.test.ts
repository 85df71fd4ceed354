import { afterEach, describe, expect, it } from "vitest";
import { firstIssue } from "./people-helpers.js";
import { HEALTH_ANY_PORT, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Logs": "keys are snake_case throughout, e.g. `duration_ms`; an error is pino's `err`
 * object with `type` and `message`", and every line about a threat names it as `threat_id`, so one
 * `jq 'select(.threat_id == "…")'` finds refusals and failures too. Runs of the built CLI that log
 * a template's failure, a failed write and a refused one, at debug level, and checks every key of
 * every JSON line, at any depth.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

type Line = Record<string, unknown>;

function jsonLines(stderr: string): Line[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l): Line => {
      const parsed: unknown = JSON.parse(l);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(l);
      return Object.fromEntries(Object.entries(parsed));
    });
}

/** Every key path whose last key is not snake_case (`durationMs`, `Threat-Id`), at any depth. */
function notSnakeCase(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item: unknown, i) => notSnakeCase(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(/^[a-z0-9]+(_[a-z0-9]+)*$/.test(key) ? [] : [`${path}.${key}`]),
    ...notSnakeCase(child, `${path}.${key}`),
  ]);
}

async function sync(w: World, exit = 0): Promise<Line[]> {
  const result = await w.cli(["sync", "-c", w.configPath], { timeoutMs: 30_000 });
  expect(result.code).toBe(exit);
  return jsonLines(result.stderr);
}

describe("log keys (contract, Logs)", () => {
  it("every key of every JSON line is snake_case; failures, refusals and template warnings name threat_id", async () => {
    // A body template that passes the config's checks but trips its work limit when rendered.
    const templates = `templates:\n  body: "{% for i in (1..20000) %}x{% endfor %}"\n`;
    world = await startWorld({ threats: 6 }, templates, { env: { THREATBRIDGE_LOG_LEVEL: "debug" } });
    const lines = await sync(world);
    const { number, threatId } = firstIssue(world);
    world.sim.sim.updateThreat(threatId, { status: "false_positive" });
    lines.push(...(await sync(world)));
    // A person locks the conversation: the reopen's comment is refused for good.
    world.gh.person.lock(REPO, number, "alice");
    world.sim.sim.updateThreat(threatId, { status: "unsolved" });
    lines.push(...(await sync(world)));
    // GitHub fails a new threat's create (502) more often than one sync tries it: the write fails,
    // and is retried later. A create is sent once per try (its unknown outcome is looked up by
    // marker, never resent at once), so the failure costs no back-off wait of the request's own.
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    for (let i = 0; i < 10; i++) world.gh.faults.failNext("POST", "/repos/{owner}/{repo}/issues", 502);
    lines.push(...(await sync(world, 1)));

    expect(lines.length).toBeGreaterThan(10);
    expect(lines.flatMap((line) => notSnakeCase(line))).toEqual([]);
    expect(lines.filter((l) => "err" in l).map((l) => l["err"])).toEqual(
      lines
        .filter((l) => "err" in l)
        .map(() => expect.objectContaining({ type: expect.any(String), message: expect.any(String) })),
    );
    const about = lines.filter((l) => l["threat_id"] === threatId).map((l) => l["msg"]);
    expect(about).toContainEqual(expect.stringContaining("refused this step for good"));
    expect(about).toContainEqual(expect.stringContaining("issue template failed"));
    const aboutFresh = lines.filter((l) => l["threat_id"] === fresh.id).map((l) => l["msg"]);
    expect(aboutFresh).toContainEqual(expect.stringContaining("work failed; it is retried later"));
    const refusal = lines.find((l) => String(l["msg"]).includes("refused this step for good"));
    expect(refusal).toMatchObject({ issue: `${REPO}#${number}`, err: { type: expect.any(String) } });
    expect(refusal?.["err"]).toMatchObject({ message: expect.stringMatching(/locked/) });
  }, 60_000);

  it("the daemon's lines too: a cycle with groups and SLAs, its summary with duration_ms, and its stop", async () => {
    const workflow = [
      HEALTH_ANY_PORT.trimEnd(),
      'schedule: "0 0 1 1 *"',
      "grouping:",
      "  by: module",
      "sla:",
      "  critical: 7d",
      "  high: 30d",
      "  medium: 90d",
      "  milestones: weekly",
      "",
    ].join("\n");
    world = await startWorld({ threats: 10 }, workflow, { env: { THREATBRIDGE_LOG_LEVEL: "debug" } });
    const running = await world.startRun();
    await running.until(() => running.stderr().includes("cycle done"), "the first cycle", 30_000);
    const stopped = await running.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    const lines = jsonLines(stopped.stderr);
    expect(lines.flatMap((line) => notSnakeCase(line))).toEqual([]);
    expect(lines.filter((l) => "err" in l).map((l) => l["err"])).toEqual(
      lines
        .filter((l) => "err" in l)
        .map(() => expect.objectContaining({ type: expect.any(String), message: expect.any(String) })),
    );
    expect(lines.find((l) => String(l["msg"]).startsWith("cycle done"))).toMatchObject({
      duration_ms: expect.any(Number),
    });
  }, 60_000);
});
