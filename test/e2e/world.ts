import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { basename, dirname, join, resolve } from "node:path";
import {
  startGitHubStandIn,
  type RunningStandIn,
  type StandInOptions,
} from "../../src/github-stand-in/index.js";
import type { main as CliMain } from "../../src/cli/main.js";
import type { Clock } from "../../src/shared/clock.js";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator/index.js";

/**
 * The world an end-to-end test runs in: the platform simulator and the GitHub stand-in on
 * 127.0.0.1, a temp directory with a YAML config, and the BUILT CLI (`dist/cli.js`) run as a
 * child process, exactly as a user would.
 */

export const CLI = resolve(import.meta.dirname, "../../dist/cli.js");
const MAIN = pathToFileURL(resolve(import.meta.dirname, "../../dist/cli/main.js")).href;
export const REPO = "acme/security-threats";
export const GH_TOKEN = "ghp_e2e_token_value";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface World {
  sim: RunningSimulator;
  gh: RunningStandIn;
  dir: string;
  configPath: string;
  statePath: string;
  env: Record<string, string>;
  writeConfig(extra?: string): Promise<void>;
  cli(args: string[], opts?: { timeoutMs?: number }): Promise<RunResult>;
  /**
   * The same command through the built CLI's `main` in this process: every layer below the process
   * boundary, at a fraction of a child's start-up. Logs are silenced (they go to fd 2 directly)
   * but `sync`'s with `logs` (on stderr, at `info`), so a test about other log lines, signals, exit
   * statuses or kills uses `cli`.
   */
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  spawnCli(args: string[]): ChildProcess;
  /** Every file of the state (the saved cursors at `statePath`, the database beside it), by name. */
  stateFiles(): Promise<Map<string, Buffer>>;
  /** Deletes every file of the state, as an operator who lost it would find it. */
  loseState(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One command through the built CLI's `main` in this process, with `env` as its environment and
 * its logs silenced (they go to fd 2 directly). The module is loaded natively (vitest.config.ts
 * leaves dist/ external): the same build as a child runs, and nothing goes through a transform.
 */
export async function runMain(
  args: string[],
  env: Record<string, string>,
  opts: RunOptions = {},
): Promise<RunResult> {
  assertBuilt();
  const { main } = (await import(MAIN)) as { main: typeof CliMain };
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    env: { ...env, THREATBRIDGE_LOG_LEVEL: opts.logs ? "info" : "silent" },
    ...(opts.clock ? { clock: opts.clock } : {}),
    // `sync`'s records (its audit lines among them) join stderr, as a child's would.
    ...(opts.logs ? { log: (record: string) => (stderr += record) } : {}),
  });
  return { code, signal: null, stdout, stderr };
}

export interface RunOptions {
  clock?: Clock;
  /** `sync`'s log records at `info` on stderr (its audit lines); otherwise silenced. */
  logs?: boolean;
}

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
}

export interface WorldOptions {
  /** The stand-in's options (e.g. GitHub App mode). */
  standIn?: StandInOptions;
  /** The YAML of the connector's GitHub credentials, default a token from $GITHUB_TOKEN. */
  githubAuthYaml?: string;
  /** More environment variables for the CLI. */
  env?: Record<string, string>;
}

export async function startWorld(
  simOptions: SimulatorOptions = {},
  yamlExtra = "",
  options: WorldOptions = {},
): Promise<World> {
  assertBuilt();
  const sim = await startSimulator({ seed: 7, assets: 8, threats: 24, ...simOptions });
  const gh = await startGitHubStandIn(options.standIn ?? { tokens: [GH_TOKEN] });
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-e2e-"));
  const configPath = join(dir, "threatbridge.yaml");
  const statePath = join(dir, "state", "state.json");
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    PLATFORM_CLIENT_ID: simOptions.clientId ?? "threatbridge",
    PLATFORM_CLIENT_SECRET: simOptions.clientSecret ?? "threatbridge-secret",
    GITHUB_TOKEN: GH_TOKEN,
    THREATBRIDGE_LOG_LEVEL: "warn",
    // Any in-place mutation of the engine's state throws in every e2e run: every change must go
    // through a commit.
    THREATBRIDGE_FREEZE_STATE: "1",
    ...options.env,
  };
  const children = new Set<ChildProcess>();

  async function writeConfig(extra = yamlExtra): Promise<void> {
    await writeFile(
      configPath,
      `platform:
  base_url: ${sim.url}
  token_url: ${sim.url}/oauth/token
  client_id: \${PLATFORM_CLIENT_ID}
  client_secret: \${PLATFORM_CLIENT_SECRET}
github:
  api_url: ${gh.url}
  ${options.githubAuthYaml ?? "token: ${GITHUB_TOKEN}"}
  repository: ${REPO}
  write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }
state:
  path: ${statePath}
${extra}`,
    );
  }
  await writeConfig();

  async function stateFiles(): Promise<Map<string, Buffer>> {
    const files = new Map<string, Buffer>();
    const names = await readdir(dirname(statePath)).catch(() => []);
    for (const name of names.sort()) {
      if (name === basename(statePath) || name === basename(statePath).replace(/\.json$/, ".db")) {
        files.set(name, await readFile(join(dirname(statePath), name)));
      }
    }
    return files;
  }

  function spawnCli(args: string[]): ChildProcess {
    const child = spawn(process.execPath, [CLI, ...args], {
      env,
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    child.on("exit", () => children.delete(child));
    return child;
  }

  function cli(args: string[], opts: { timeoutMs?: number } = {}): Promise<RunResult> {
    return new Promise((resolvePromise, reject) => {
      const child = spawnCli(args);
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`threatbridge ${args.join(" ")} did not finish in time\n${stderr}`));
      }, opts.timeoutMs ?? 60_000);
      child.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolvePromise({ code, signal, stdout, stderr });
      });
    });
  }

  // A child's exit took longer than the platform's asynchronous writes (links, notes: spec,
  // external references rule 5) take to apply; in-process, the next read could beat them. They are
  // applied when the command returns, as they were by the time a child had exited.
  const run = async (args: string[], opts: RunOptions = {}): Promise<RunResult> => {
    const result = await runMain(args, env, opts);
    sim.sim.settle();
    return result;
  };

  return {
    sim,
    gh,
    dir,
    configPath,
    statePath,
    env,
    writeConfig,
    cli,
    run,
    spawnCli,
    stateFiles,
    async loseState() {
      for (const name of (await stateFiles()).keys()) await rm(join(dirname(statePath), name));
      // The database's write-ahead log and its index, when a process left them.
      for (const suffix of ["-wal", "-shm"])
        await rm(`${statePath.replace(/\.json$/, ".db")}${suffix}`, { force: true });
    },
    async close() {
      for (const child of children) child.kill("SIGKILL");
      await Promise.all([sim.close(), gh.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Threats the connector should give an issue to, with the default filters. */
export function eligibleIds(world: World, firstSeen: Map<string, string>): string[] {
  return world.sim.sim
    .threatIds()
    .filter((id) => {
      const status = firstSeen.get(id);
      return status === "unsolved" || status === "pending";
    })
    .sort();
}

export function firstSeenStatuses(world: World): Map<string, string> {
  const map = new Map<string, string>();
  for (const id of world.sim.sim.threatIds()) {
    const t = world.sim.sim.getThreat(id);
    if (t) map.set(id, t.status);
  }
  return map;
}

/** A port of 127.0.0.1 that was free a moment ago (a `run` under test binds it itself). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A GET of a `run`'s health port: null while it is not listening yet. */
export async function get(url: string): Promise<{ status: number; text: string } | null> {
  try {
    const res = await fetch(url);
    return { status: res.status, text: await res.text() };
  } catch {
    return null; // not listening yet
  }
}
