import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { startGitHubFront, type FrontMode, type GitHubFront } from "../e2e/github-front.js";
import {
  eligibleIds,
  firstSeenStatuses,
  HEALTH_ANY_PORT,
  REPO,
  startWorld,
  watch,
  type World,
} from "../e2e/world.js";

/**
 * Contract, `run`: "SIGTERM/SIGINT finish the write in flight, save state, exit 0 within 5 s
 * whatever either side is doing" — here while GitHub is down (502 to everything), hangs (accepts,
 * never answers), or takes a create and withholds its answer. The BUILT CLI, then a restart
 * against a healthy GitHub that does the queued work exactly once. Each test has its own world and
 * front, and most of a test is waiting for a child to stop: the tests run at the same time.
 */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;
const CONTRACT_MS = 5_000;
/** `run` with one cycle at start and no scheduled one in the test's time (health on any free port). */
const QUIET_RUN = `${HEALTH_ANY_PORT}schedule: "0 0 1 1 *"\n`;
/** The stop's SIGKILL comes well after the contract's 5 s: a slow stop fails on its time, not a kill. */
const KILL_AFTER_MS = 15_000;

/** A world whose connector reaches GitHub through a front the test switches; both closed when the test ends. */
async function outageWorld(
  extra: string,
  onTestFinished: (fn: () => Promise<void>) => void,
): Promise<{ w: World; f: GitHubFront }> {
  const w = await startWorld({}, extra);
  onTestFinished(() => w.close());
  const f = await startGitHubFront(w.gh.url);
  onTestFinished(() => f.close());
  const yaml = await readFile(w.configPath, "utf8");
  await writeFile(w.configPath, yaml.replace(`api_url: ${w.gh.url}`, `api_url: ${f.url}`));
  return { w, f };
}

/** The threats of the issues GitHub holds, one entry per issue (a duplicate shows twice). */
function markerIds(w: World): string[] {
  return w.gh
    .issues(REPO)
    .map((i) => MARKER.exec(i.body ?? "")?.[1] ?? "")
    .sort();
}

/** GitHub healthy again: one `sync` does the queued work, each eligible threat gets exactly one issue. */
async function restartDoesItOnce(w: World, f: GitHubFront, firstSeen: Map<string, string>): Promise<void> {
  f.mode = "pass";
  // In this process: the restart's work is the point here, not its process.
  const after = await w.run(["sync", "-c", w.configPath]);
  expect(after.code, after.stderr).toBe(0);
  expect(markerIds(w)).toEqual(eligibleIds(w, firstSeen));
}

describe.concurrent("run: SIGTERM exits 0 within 5 s whatever GitHub does (contract, run)", () => {
  for (const mode of ["502", "hang"] as const satisfies FrontMode[]) {
    it(`GitHub ${mode === "502" ? "answers 502 to everything" : "accepts and never answers"}: exit 0 within 5 s, state saved, the restart creates each issue once`, async ({
      onTestFinished,
    }) => {
      const { w, f } = await outageWorld(QUIET_RUN, onTestFinished);
      const firstSeen = firstSeenStatuses(w);
      f.mode = mode;
      const watched = watch(w.spawnCli(["run", "-c", w.configPath]));
      // In the middle of GitHub's retries (502) or of a request GitHub holds (hang).
      await watched.until(() => f.requests.length > 0, "the first GitHub request");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopped = await watched.stop("SIGTERM", KILL_AFTER_MS);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.ms, stopped.stderr).toBeLessThan(CONTRACT_MS);
      // A stop is no fault: nothing at error level for an alert to fire on.
      expect(stopped.stderr).not.toContain('"level":"error"');
      expect(await readStoredState(w.statePath)).not.toBeNull();
      await restartDoesItOnce(w, f, firstSeen);
    }, 60_000);
  }

  it("a create in flight whose answer GitHub withholds: cut, exit 0 within 5 s with its intent kept; the restart finds it by its marker, no duplicate", async ({
    onTestFinished,
  }) => {
    const { w, f } = await outageWorld(QUIET_RUN, onTestFinished);
    const firstSeen = firstSeenStatuses(w);
    f.mode = "withhold-creates";
    const watched = watch(w.spawnCli(["run", "-c", w.configPath]));
    await watched.until(() => w.gh.issues(REPO).length === 1, "GitHub to take the first create");
    const stopped = await watched.stop("SIGTERM", KILL_AFTER_MS);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.ms, stopped.stderr).toBeLessThan(CONTRACT_MS);
    const state = await readStoredState(w.statePath);
    expect(Object.values(state?.intents ?? {}).map((i) => i.kind)).toContain("create");
    const creates = f.requests.filter((r) => r.method === "POST" && r.path.endsWith("/issues")).length;
    await restartDoesItOnce(w, f, firstSeen);
    // The withheld create was found, not sent again: one create per issue in all.
    const createsAfter = f.requests.filter((r) => r.method === "POST" && r.path.endsWith("/issues")).length;
    expect(createsAfter).toBe(creates - 1 + eligibleIds(w, firstSeen).length);
  }, 60_000);
});

describe.concurrent(
  "sync: SIGTERM while GitHub answers 502 exits 1 within 5 s with the work still queued",
  () => {
    it("exits 1 within 5 s, says it was interrupted, and the next sync creates each issue once", async ({
      onTestFinished,
    }) => {
      const { w, f } = await outageWorld("", onTestFinished);
      const firstSeen = firstSeenStatuses(w);
      f.mode = "502";
      const watched = watch(w.spawnCli(["sync", "-c", w.configPath]));
      await watched.until(() => f.requests.length > 0, "the first GitHub request");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopped = await watched.stop("SIGTERM", KILL_AFTER_MS);
      expect(stopped.code, stopped.stderr).toBe(1);
      expect(stopped.ms, stopped.stderr).toBeLessThan(CONTRACT_MS);
      expect(stopped.stdout).toContain("sync interrupted by SIGTERM");
      await restartDoesItOnce(w, f, firstSeen);
    }, 60_000);
  },
);
