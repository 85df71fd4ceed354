import type { ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { startGitHubFront, type FrontMode, type GitHubFront } from "../e2e/github-front.js";
import { eligibleIds, firstSeenStatuses, REPO, startWorld, type World } from "../e2e/world.js";
import { until } from "./daemon-world.js";

/**
 * Contract, `run`: "SIGTERM/SIGINT finish the write in flight, save state, exit 0 within 5 s
 * whatever either side is doing" — here while GitHub is down (502 to everything), hangs (accepts,
 * never answers), or takes a create and withholds its answer. The BUILT CLI, then a restart
 * against a healthy GitHub that does the queued work exactly once.
 */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;
const CONTRACT_MS = 5_000;
/**
 * `run` with one cycle at start and no scheduled one in the test's time. The health server takes
 * any free port (0): these tests never ask it, and a port picked free beforehand can be taken by
 * another test before the child binds it.
 */
const QUIET_RUN = `health: { port: 0, host: 127.0.0.1 }\nschedule: "0 0 1 1 *"\n`;

let world: World | undefined;
let front: GitHubFront | undefined;
afterEach(async () => {
  await world?.close();
  await front?.close();
  world = undefined;
  front = undefined;
});

/** The threats of the issues GitHub holds, one entry per issue (a duplicate shows twice). */
function markerIds(w: World): string[] {
  return w.gh
    .issues(REPO)
    .map((i) => MARKER.exec(i.body ?? "")?.[1] ?? "")
    .sort();
}

/** A world whose connector reaches GitHub through a front the test switches. */
async function outageWorld(extra: string): Promise<{ w: World; f: GitHubFront }> {
  const w = await startWorld({}, extra);
  const f = await startGitHubFront(w.gh.url);
  const yaml = await readFile(w.configPath, "utf8");
  await writeFile(w.configPath, yaml.replace(`api_url: ${w.gh.url}`, `api_url: ${f.url}`));
  world = w;
  front = f;
  return { w, f };
}

/**
 * A started child's stderr from its first byte (read at once, so a full pipe never blocks it), and
 * a wait that fails at once, with that stderr, if the child ends before `check()` holds.
 */
function watch(child: ChildProcess): {
  stderr: () => string;
  until: (check: () => boolean, what: string) => Promise<void>;
} {
  let stderr = "";
  let ended: string | null = null;
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  child.once("exit", (code, signal) => (ended = `exited ${code ?? signal}`));
  return {
    stderr: () => stderr,
    until: (check, what) =>
      until(
        () => {
          if (ended !== null) throw new Error(`the child ${ended} before ${what}:\n${stderr}`);
          return check();
        },
        what,
        20_000,
      ),
  };
}

/** SIGTERM now; how the child ended and how long after the signal (SIGKILL after 15 s). */
async function stopAndTime(
  child: ChildProcess,
  watched: ReturnType<typeof watch>,
): Promise<{ code: number | null; ms: number; stderr: string }> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const sent = Date.now();
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  try {
    const code = await exited;
    return { code, ms: Date.now() - sent, stderr: watched.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** GitHub healthy again: one `sync` does the queued work, each eligible threat gets exactly one issue. */
async function restartDoesItOnce(w: World, f: GitHubFront, firstSeen: Map<string, string>): Promise<void> {
  f.mode = "pass";
  const after = await w.cli(["sync", "-c", w.configPath], { timeoutMs: 30_000 });
  expect(after.code, after.stderr).toBe(0);
  expect(markerIds(w)).toEqual(eligibleIds(w, firstSeen));
}

describe("run: SIGTERM exits 0 within 5 s whatever GitHub does (contract, run)", () => {
  for (const mode of ["502", "hang"] as const satisfies FrontMode[]) {
    it(`GitHub ${mode === "502" ? "answers 502 to everything" : "accepts and never answers"}: exit 0 within 5 s, state saved, the restart creates each issue once`, async () => {
      const { w, f } = await outageWorld(QUIET_RUN);
      const firstSeen = firstSeenStatuses(w);
      f.mode = mode;
      const child = w.spawnCli(["run", "-c", w.configPath]);
      const watched = watch(child);
      // In the middle of GitHub's retries (502) or of a request GitHub holds (hang).
      await watched.until(() => f.requests.length > 0, "the first GitHub request");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopped = await stopAndTime(child, watched);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.ms, stopped.stderr).toBeLessThan(CONTRACT_MS);
      // A stop is no fault: nothing at error level for an alert to fire on.
      expect(stopped.stderr).not.toContain('"level":"error"');
      expect(await readStoredState(w.statePath)).not.toBeNull();
      await restartDoesItOnce(w, f, firstSeen);
    }, 60_000);
  }

  it("a create in flight whose answer GitHub withholds: cut, exit 0 within 5 s with its intent kept; the restart finds it by its marker, no duplicate", async () => {
    const { w, f } = await outageWorld(QUIET_RUN);
    const firstSeen = firstSeenStatuses(w);
    f.mode = "withhold-creates";
    const child = w.spawnCli(["run", "-c", w.configPath]);
    const watched = watch(child);
    await watched.until(() => w.gh.issues(REPO).length === 1, "GitHub to take the first create");
    const stopped = await stopAndTime(child, watched);
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

describe("sync: SIGTERM while GitHub answers 502 exits 1 within 5 s with the work still queued", () => {
  it("exits 1 within 5 s, says it was interrupted, and the next sync creates each issue once", async () => {
    const { w, f } = await outageWorld("");
    const firstSeen = firstSeenStatuses(w);
    f.mode = "502";
    const child = w.spawnCli(["sync", "-c", w.configPath]);
    const watched = watch(child);
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    await watched.until(() => f.requests.length > 0, "the first GitHub request");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopped = await stopAndTime(child, watched);
    expect(stopped.code, stopped.stderr).toBe(1);
    expect(stopped.ms, stopped.stderr).toBeLessThan(CONTRACT_MS);
    expect(stdout).toContain("sync interrupted by SIGTERM");
    await restartDoesItOnce(w, f, firstSeen);
  }, 60_000);
});
