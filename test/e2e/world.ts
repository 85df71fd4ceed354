import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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
  /** A child of the built CLI; `env` adds to or overrides the world's environment. */
  spawnCli(args: string[], env?: Record<string, string>): ChildProcess;
  /**
   * `threatbridge run -c <config>` as a child, once its health server listens: the config must
   * say `health.port: 0` (HEALTH_ANY_PORT), and the child's start line tells the port it bound. A
   * port picked free beforehand can be taken by another test before the child binds it. The child
   * logs at `info` at least (the start line's level); a world at `debug` keeps `debug`.
   */
  startRun(args?: string[]): Promise<RunningCli>;
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

/**
 * A world closed when the test ends, for tests that run at the same time (each needs its own, and
 * a file-wide `afterEach` would close another test's): pass the test's context.
 */
export async function worldFor(
  t: { onTestFinished: (fn: () => Promise<void>) => void },
  ...args: Parameters<typeof startWorld>
): Promise<World> {
  const w = await startWorld(...args);
  t.onTestFinished(() => w.close());
  return w;
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

  function spawnCli(args: string[], extraEnv: Record<string, string> = {}): ChildProcess {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...env, ...extraEnv },
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

  async function startRun(args: string[] = []): Promise<RunningCli> {
    const level = env["THREATBRIDGE_LOG_LEVEL"] ?? "info";
    const verbose = ["trace", "debug", "info"].includes(level);
    const watched = watch(
      spawnCli(["run", "-c", configPath, ...args], verbose ? {} : { THREATBRIDGE_LOG_LEVEL: "info" }),
    );
    let base: string | undefined;
    await watched.until(() => (base = runningAt(watched.stderr())) !== undefined, "run's start line");
    return { ...watched, base: base ?? "" };
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
    startRun,
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

/**
 * The health server of a `run` under test on any free port, told by the child's start line
 * (World.startRun). A number picked free beforehand can be taken meanwhile by another test.
 */
export const HEALTH_ANY_PORT = "health: { port: 0, host: 127.0.0.1 }\n";

/** The health server's URL from `run`'s JSON start line ("threatbridge is running"), once logged. */
function runningAt(stderr: string): string | undefined {
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{") || !line.includes('"threatbridge is running"')) continue;
    const record = JSON.parse(line) as { msg?: unknown; health?: unknown };
    if (record.msg === "threatbridge is running" && typeof record.health === "string") return record.health;
  }
  return undefined;
}

/** How a watched child ended after `stop`, and how long after the signal. */
export interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  /** The child outlived the grace and was sent SIGKILL. */
  killed: boolean;
  stdout: string;
  stderr: string;
}

/** A child of the built CLI, its output read from the first byte (so a full pipe never blocks it). */
export interface Watched {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /**
   * Waits until `check()` holds, polling every 20 ms; fails at once, with the child's stderr, if
   * the child ends first, and after `limitMs` if it never holds.
   */
  until: (check: () => boolean | Promise<boolean>, what: string, limitMs?: number) => Promise<void>;
  /** Sends `signal` (SIGTERM) and waits for the exit; SIGKILL after `graceMs` (10 s). */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<Stopped>;
}

/** A `run` child whose health server listens at `base` (e.g. http://127.0.0.1:41234). */
export interface RunningCli extends Watched {
  base: string;
}

export function watch(child: ChildProcess): Watched {
  let stdout = "";
  let stderr = "";
  let ended: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  // `close`, not `exit`: the output is all read by then.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveClosed) =>
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      ended = { code, signal };
      resolveClosed(ended);
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async until(check, what, limitMs = 20_000) {
      for (const end = Date.now() + limitMs; ;) {
        if (ended !== null)
          throw new Error(`the child exited (${ended.code ?? ended.signal}) before ${what}:\n${stderr}`);
        if (await check()) return;
        if (Date.now() >= end) throw new Error(`gave up waiting for ${what}:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop(signal = "SIGTERM", graceMs = 10_000) {
      const sent = Date.now();
      let killed = false;
      if (ended === null) child.kill(signal);
      const timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, graceMs);
      try {
        const { code, signal: by } = await closed;
        return { code, signal: by, ms: Date.now() - sent, killed, stdout, stderr };
      } finally {
        clearTimeout(timer);
      }
    },
  };
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
