import { spawn, type ChildProcess } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SIMULATOR_PORT, STAND_IN_PORT, STAND_IN_TOKEN } from "../../src/cli/simulate-command.js";
import { parseConfigText } from "../../src/config/index.js";
import { CLOSING_HINT } from "../../src/demo/index.js";
import { assertBuilt, CLI } from "../e2e/world.js";

/**
 * The demo's closing hint is a command that works as written. The hint's two commands
 * are taken from the demo's text and run: `simulate --with-github` serves the simulator and the
 * GitHub stand-in, and the shipped config/threatbridge.yaml, with the environment the hint sets,
 * syncs against both. The one liberty taken: the servers bind free ports (port 0) instead of
 * 8080/8081, which other tests on this machine may hold; the config's defaults are checked to be
 * exactly those ports, and the URLs are passed in the config's own variables.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const SHIPPED = join(ROOT, "config", "threatbridge.yaml");
const children: ChildProcess[] = [];
let dir = "";

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

/** The hint's commands: its `backticked` parts, split into environment assignments and argv. */
function hintCommands(): { env: Record<string, string>; argv: string[] }[] {
  return [...CLOSING_HINT.matchAll(/`([^`]+)`/g)].map((m) => {
    const words = (m[1] ?? "").split(/\s+/);
    const env: Record<string, string> = {};
    while (words[0]?.includes("=") === true) {
      const [name, ...value] = (words.shift() ?? "").split("=");
      env[name ?? ""] = value.join("=");
    }
    return { env, argv: words };
  });
}

/** `node dist/cli.js …` as written, run with this node and this checkout's dist/cli.js. */
function toSpawnArgs(argv: string[]): string[] {
  expect(argv.slice(0, 2)).toEqual(["node", "dist/cli.js"]);
  return [CLI, ...argv.slice(2)];
}

describe("the demo's closing hint", () => {
  it("names simulate --with-github and a sync whose environment fits the shipped config's defaults", async () => {
    const [serve, sync] = hintCommands();
    expect(serve?.argv.slice(2, 4)).toEqual(["simulate", "--with-github"]);
    expect(sync?.argv.at(-1)).toBe("sync");
    const { config } = parseConfigText(await readFile(SHIPPED, "utf8"), SHIPPED, sync?.env ?? {});
    expect(config.platform.base_url).toBe(`http://127.0.0.1:${SIMULATOR_PORT}`);
    expect(config.platform.token_url).toBe(`http://127.0.0.1:${SIMULATOR_PORT}/oauth/token`);
    expect(config.github.api_url).toBe(`http://127.0.0.1:${STAND_IN_PORT}`);
    expect(config.github.token).toBe(STAND_IN_TOKEN);
  });

  it("works as written: the sync creates issues in the stand-in that simulate --with-github serves", async () => {
    assertBuilt();
    const [serve, sync] = hintCommands();
    if (serve === undefined || sync === undefined) throw new Error("the hint has two commands");
    const server = spawn(
      process.execPath,
      [...toSpawnArgs(serve.argv), "--port", "0", "--github-port", "0"],
      {
        env: { PATH: process.env["PATH"] ?? "", ...serve.env },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    children.push(server);
    const { platformUrl, githubUrl, token } = await new Promise<{
      platformUrl: string;
      githubUrl: string;
      token: string;
    }>((resolveUrls, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`simulate did not start: ${out}`)), 20_000);
      server.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
        const platform = /platform simulator on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        const github = /GitHub stand-in on (http:\/\/127\.0\.0\.1:\d+) \(token (\S+)\)/.exec(out);
        if (platform?.[1] && github?.[1] && github[2]) {
          clearTimeout(timer);
          resolveUrls({ platformUrl: platform[1], githubUrl: github[1], token: github[2] });
        }
      });
      server.once("exit", () => reject(new Error(`simulate exited: ${out}`)));
    });
    expect(token).toBe(sync.env["GITHUB_TOKEN"]);

    // The hint runs from the repository root: a directory with config/threatbridge.yaml in it.
    dir = await mkdtemp(join(tmpdir(), "threatbridge-hint-"));
    await mkdir(join(dir, "config"));
    await copyFile(SHIPPED, join(dir, "config", "threatbridge.yaml"));
    const result = await new Promise<{ code: number | null; stderr: string; stdout: string }>(
      (resolveRun, reject) => {
        const child = spawn(process.execPath, toSpawnArgs(sync.argv), {
          cwd: dir,
          env: {
            PATH: process.env["PATH"] ?? "",
            ...sync.env,
            PLATFORM_BASE_URL: platformUrl,
            PLATFORM_TOKEN_URL: `${platformUrl}/oauth/token`,
            GITHUB_API_URL: githubUrl,
          },
          stdio: ["ignore", "pipe", "pipe"],
        });
        children.push(child);
        let stdout = "";
        let stderr = "";
        child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`sync did not finish: ${stderr}`));
        }, 90_000);
        child.on("exit", (code) => {
          clearTimeout(timer);
          resolveRun({ code, stdout, stderr });
        });
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const issues = await fetch(`${githubUrl}/repos/acme/security-threats/issues?state=all&per_page=100`, {
      headers: { authorization: `token ${token}` },
    });
    expect(issues.status).toBe(200);
    expect(((await issues.json()) as unknown[]).length).toBeGreaterThan(0);

    const exited = new Promise<number | null>((r) => server.once("exit", (code) => r(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 120_000);
});
