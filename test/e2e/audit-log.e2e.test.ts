import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";

/** The contract's audit line ("Logs"): every write to either side, one info line, from the built CLI. */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface LogLine {
  level?: string;
  action?: string;
  threat_id?: string;
  issue?: string;
  status?: string;
  answered?: string | null;
  by?: string | null;
  msg?: string;
}

/** The JSON log lines of a run (stderr is not a terminal, so pino writes JSON). */
function auditLines(stderr: string): LogLine[] {
  return stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => typeof l.action === "string");
}

/**
 * A sync's audit lines: from a child's stderr (`child`), or from the built CLI's `main` in this
 * process with its records at `info` (the same lines, without a child's start-up for every step).
 */
async function syncLog(w: World, how: "child" | "in-process" = "in-process"): Promise<LogLine[]> {
  const result =
    how === "child"
      ? await w.cli(["sync", "-c", w.configPath])
      : await w.run(["sync", "-c", w.configPath], { logs: true });
  expect(result.code).toBe(0);
  return auditLines(result.stderr);
}

describe("the audit line (contract, Logs)", () => {
  it("every write to either side is one info line with action, threat_id and issue", async () => {
    world = await startWorld({ threats: 8 }, "", { env: { THREATBRIDGE_LOG_LEVEL: "info" } });
    // The backfill's lines as a process writes them to stderr; the later steps' in-process.
    const created = await syncLog(world, "child");
    const issues = world.gh.issues(REPO);
    expect(created.filter((l) => l.action === "create")).toHaveLength(issues.length);
    expect(created.filter((l) => l.action === "link")).toHaveLength(issues.length);
    for (const issue of issues) {
      const threatId = MARKER.exec(issue.body ?? "")?.[1] ?? "";
      expect(created).toContainEqual(
        expect.objectContaining({
          level: "info",
          action: "create",
          threat_id: threatId,
          issue: `${REPO}#${issue.number}`,
        }),
      );
    }

    const first = issues[0];
    if (!first) throw new Error("no issue");
    const threatId = MARKER.exec(first.body ?? "")?.[1] ?? "";
    const ref = `${REPO}#${first.number}`;
    world.sim.sim.updateThreat(threatId, { status: "false_positive" });
    expect(await syncLog(world)).toContainEqual(
      expect.objectContaining({ action: "close", threat_id: threatId, issue: ref }),
    );
    world.sim.sim.updateThreat(threatId, { status: "unsolved" });
    const reopened = await syncLog(world);
    expect(reopened).toContainEqual(
      expect.objectContaining({ action: "reopen", threat_id: threatId, issue: ref }),
    );
    expect(reopened).toContainEqual(
      expect.objectContaining({ action: "comment", threat_id: threatId, issue: ref }),
    );
    world.sim.sim.updateThreat(threatId, { name: "Renamed for the audit" });
    expect(await syncLog(world)).toContainEqual(
      expect.objectContaining({ action: "update", threat_id: threatId, issue: ref }),
    );
    world.gh.person.close(REPO, first.number, { reason: "completed", login: "alice" });
    expect(await syncLog(world)).toContainEqual(
      expect.objectContaining({ action: "verdict", threat_id: threatId, issue: ref }),
    );
  });

  it("a verdict's line says which verdict: `status` sent, `answered` by the platform, and `by` the person whose close or reopen it carries", async () => {
    world = await startWorld({ threats: 4 }, "", { env: { THREATBRIDGE_LOG_LEVEL: "info" } });
    await syncLog(world);
    const first = world.gh.issues(REPO)[0];
    if (!first) throw new Error("no issue");
    const threatId = MARKER.exec(first.body ?? "")?.[1] ?? "";
    const ref = `${REPO}#${first.number}`;
    world.gh.person.close(REPO, first.number, { reason: "completed", login: "alice" });
    const closed = (await syncLog(world)).filter((l) => l.action === "verdict");
    expect(closed).toEqual([
      expect.objectContaining({
        level: "info",
        threat_id: threatId,
        issue: ref,
        status: "solved",
        answered: world.sim.sim.getThreat(threatId)?.status,
        by: "alice",
        msg: `verdict ${ref}: solved sent, ${world.sim.sim.getThreat(threatId)?.status} answered, by alice`,
      }),
    ]);
    // The platform answers with the effective status it recalculated, which need not be the one sent.
    expect(closed[0]?.answered).toEqual(expect.any(String));
    world.gh.person.reopen(REPO, first.number, "bob");
    const reopened = (await syncLog(world)).filter((l) => l.action === "verdict");
    expect(reopened).toEqual([
      expect.objectContaining({
        threat_id: threatId,
        status: "unsolved",
        answered: world.sim.sim.getThreat(threatId)?.status,
        by: "bob",
      }),
    ]);
  });
});
