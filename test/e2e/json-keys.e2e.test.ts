import { afterEach, describe, expect, it } from "vitest";
import { snakeCase, snakeKeys } from "../../src/shared/index.js";
import { startWorld, type World } from "./world.js";

/**
 * One vocabulary: every key a user reads in `status --json` and `sync --json` is snake_case, as in
 * the logs (contract, "Logs"); only the keys of maps keyed by data (repositories, action, severity
 * and counter names) are the data's own.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const DATA_KEYED = new Set(["by_repository", "by_action", "by_severity", "counts", "counters"]);

/** Every key of `value` that is not snake_case, by its path. */
function notSnake(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => notSnake(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(/^[a-z][a-z0-9_]*$/.test(key) ? [] : [`${path}.${key}`]),
    ...(DATA_KEYED.has(key) ? [] : notSnake(item, `${path}.${key}`)),
  ]);
}

describe("one vocabulary: snake_case keys in the JSON a user reads", () => {
  it("camelCase names become snake_case; the keys of data-keyed maps stay as the data has them", () => {
    expect(snakeCase("etaSeconds")).toBe("eta_seconds");
    expect(snakeCase("dueWithin7Days")).toBe("due_within_7_days");
    expect(snakeCase("threat_id")).toBe("threat_id");
    expect(
      snakeKeys(
        {
          lastError: { threatId: "t" },
          issues: { byRepository: { "myOrg/Repo": 1 } },
          list: [{ seenAt: "x" }],
        },
        new Set(["byRepository"]),
      ),
    ).toEqual({
      last_error: { threat_id: "t" },
      issues: { by_repository: { "myOrg/Repo": 1 } },
      list: [{ seen_at: "x" }],
    });
  });

  it("`sync --json` and `status --json` have snake_case keys throughout, and no `deferred`", async () => {
    world = await startWorld({ threats: 12 });
    const sync = await world.run(["sync", "-c", world.configPath, "--json"]);
    expect(sync.code).toBe(0);
    const report: unknown = JSON.parse(sync.stdout);
    expect(notSnake(report)).toEqual([]);
    expect(report).toMatchObject({
      started_at: expect.any(String),
      drained: { done: expect.any(Number), failed: 0 },
    });
    expect(sync.stdout).not.toContain("deferred");
    const status = await world.run(["status", "-c", world.configPath, "--json"]);
    const doc: unknown = JSON.parse(status.stdout);
    expect(notSnake(doc)).toEqual([]);
    expect(doc).toMatchObject({
      state_file: true,
      last_cycle: { ok: true, finished_at: expect.any(String) },
      backlog: {
        eta_seconds: 0,
        budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 },
        more_to_read: false,
      },
    });
  });
});
