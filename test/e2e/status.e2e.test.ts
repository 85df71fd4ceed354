import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { emptyState, type State } from "../../src/sync/schema.js";
import { assertBuilt, CLI, REPO, startWorld, type RunResult, type World } from "./world.js";
import { seedStore } from "../state/seed-store.js";

/** `threatbridge status` answers an operator's questions (contract, "Command line": `status`). */

let dir: string | undefined;
let world: World | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  await world?.close();
  dir = undefined;
  world = undefined;
});

/** The built CLI with no secret in the environment: PATH and what the test names. */
function threatbridge(args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not finish in time`));
    }, 30_000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function status(args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  return threatbridge(["status", ...args], cwd, env);
}

const CONFIG = (statePath: string): string => `platform:
  base_url: http://127.0.0.1:1
  token_url: http://127.0.0.1:1/oauth/token
  client_id: \${PLATFORM_CLIENT_ID}
  client_secret: \${PLATFORM_CLIENT_SECRET}
github:
  token: \${GITHUB_TOKEN}
  repository: ${REPO}
  write_budget: { per_minute: 6, per_hour: 600, min_interval_ms: 1000 }
state:
  path: ${statePath}
`;

const ID = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

function stateWithBacklog(): State {
  const state = emptyState();
  state.cursors.threats = "eyJwb3NpdGlvbiI6MTIzNDU2Nzg5MCwic2VlZCI6N30";
  const entries: Array<[number, number]> = [
    [2, 0],
    [2, 4],
    [2, 4],
    [2, 2],
    [1, 3],
    [0, 1],
  ];
  // The order is derived from each threat's record, never stored: 0 a person's change on a
  // mapped issue, 1 an open issue of a solved threat, 2 a threat with no issue yet.
  entries.forEach(([priority, severity], i) => {
    const issue = {
      repo: REPO,
      number: i + 1,
      url: `https://github.test/${REPO}/issues/${i + 1}`,
      state: "open" as const,
      hash: "h",
    };
    state.threats[ID(i)] = {
      status: priority === 1 ? "solved" : "unsolved",
      severity,
      assetId: null,
      updatedAt: "2026-01-01T00:00:00.000Z",
      ...(priority < 2 ? { issue } : {}),
    };
    state.queue[ID(i)] = {
      seq: i + 1,
      enqueuedAt: "2026-01-01T00:00:00.000Z",
      attempts: 0,
      ...(priority === 0
        ? {
            person: {
              event: "closed" as const,
              reason: "completed",
              login: "alice",
              repo: REPO,
              number: issue.number,
              url: issue.url,
              seenAt: "2026-01-01T00:00:00.000Z",
            },
          }
        : {}),
    };
  });
  const failing = state.queue[ID(3)];
  if (failing) {
    failing.attempts = 2;
    failing.lastError = "GitHub answered 422: label name too long";
  }
  state.lastCycle = {
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:02:00.000Z",
    ok: false,
    counts: {},
  };
  return state;
}

describe("status", () => {
  it("needs no secret, tells who holds the lock and since when, the backlog by action and severity (critical first) with its ETA, the last error, readable times", async () => {
    assertBuilt();
    dir = await mkdtemp(join(tmpdir(), "threatbridge-status-"));
    const statePath = join(dir, "data", "state.json");
    await mkdir(join(dir, "data"));
    await writeFile(join(dir, "c.yaml"), CONFIG(statePath));
    await seedStore(statePath, stateWithBacklog());
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    // A lock held by this (running) test process, as `run` would write it.
    await writeFile(
      `${statePath}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: since }),
    );

    const text = await status(["-c", "c.yaml"], dir);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `held by pid ${process.pid} on ${hostname()} since ${since} (5 min ago) (running)`,
    );
    // 6 a minute, one a second, nothing spent in the windows: the sixth goes 5 s from now.
    expect(text.stdout).toMatch(/backlog: +6 queued: about 5 s at 6\/min, 600\/h, 1 s apart; 1 failing$/m);
    expect(text.stdout).toContain("by action:   verdict 1, close_reopen 1, create 4");
    expect(text.stdout).toContain("by severity: critical 2, high 1, medium 1, low 1, informational 1");
    expect(text.stdout).toContain(`last error: GitHub answered 422: label name too long (threat ${ID(3)})`);
    expect(text.stdout).toMatch(
      /last cycle: failed, finished 2026-01-01T00:02:00\.000Z \(\d+ d( \d+ h)? ago\), took 120 s/,
    );
    // A process holds the lock: the last cycle written may be old while it polls (idle polls write nothing).
    expect(text.stdout).toContain("(idle polls since write nothing; the daemon's /metrics shows its latest)");
    expect(text.stdout).toContain("threats eyJwb3NpdGlv…");
    expect(text.stdout).not.toContain("eyJwb3NpdGlvbiI6MTIzNDU2Nzg5MCwic2VlZCI6N30");

    const json = await status(["-c", "c.yaml", "--json"], dir);
    expect(json.code).toBe(0);
    const report: unknown = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      lock: { held: true, pid: process.pid, since, alive: true },
      backlog: {
        total: 6,
        by_severity: [
          ["critical", 2],
          ["high", 1],
          ["medium", 1],
          ["low", 1],
          ["informational", 1],
        ],
        eta_seconds: 5,
      },
      last_error: { message: "GitHub answered 422: label name too long", threat_id: ID(3) },
      cursors: { threats: "eyJwb3NpdGlvbiI6MTIzNDU2Nzg5MCwic2VlZCI6N30" },
    });
  });

  it("after a sync: the lock is free, and the write budget used and GitHub's rate limit as last seen are shown", async () => {
    world = await startWorld();
    expect((await world.cli(["sync", "-c", world.configPath])).code).toBe(0);
    const made = world.gh.issues(REPO).length;
    // The client id is not a secret; the client secret and the GitHub token stay out.
    const text = await status(["-c", world.configPath], world.dir, { PLATFORM_CLIENT_ID: "threatbridge" });
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("lock:       free");
    expect(text.stdout).toContain(`${made} writes by the process of the last cycle`);
    expect(text.stdout).toMatch(/GitHub rate limit \d+\/\d+ left as seen \S+ \(\d+ s ago\)/);
  });

  it("contract, `status` needs no secret: secret variables set but empty read like unset ones, the client id's too; sync, run and check still refuse them with file, line and key", async () => {
    assertBuilt();
    dir = await mkdtemp(join(tmpdir(), "threatbridge-status-"));
    const statePath = join(dir, "data", "state.json");
    await writeFile(join(dir, "c.yaml"), CONFIG(statePath));
    const empty = { PLATFORM_CLIENT_SECRET: "", GITHUB_TOKEN: "" };

    const json = await status(["-c", "c.yaml", "--json"], dir, empty);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ state_path: statePath, state_file: false, refused: [] });

    for (const command of ["sync", "run", "check"]) {
      const refused = await threatbridge([command, "-c", "c.yaml"], dir, {
        ...empty,
        PLATFORM_CLIENT_ID: "threatbridge",
      });
      expect(refused.code, command).toBe(2);
      expect(refused.stderr, command).toContain("c.yaml:5: platform.client_secret: must not be empty");
      expect(refused.stderr, command).toContain("c.yaml:7: github.token: must not be empty");
    }
  });
});
