import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SIMULATOR_PORT, STAND_IN_PORT, STAND_IN_TOKEN } from "../../src/cli/simulate-command.js";
import { parseConfigText } from "../../src/config/index.js";
import { closingHint, type Place } from "../../src/demo/index.js";
import { assertBuilt, CLI } from "../e2e/world.js";

/**
 * The demo's closing hint names commands that work as written where the demo runs: in a checkout
 * (`node dist/cli.js …` from its root) and from an installed package (`threatbridge init`, then
 * `threatbridge …` from the same directory). The hint's commands are taken from the demo's text
 * and run, `node dist/cli.js` and `threatbridge` both as this checkout's built CLI: `simulate --with-github` serves the simulator and the
 * GitHub stand-in, and the shipped config/threatbridge.yaml, with the environment the hint sets,
 * syncs against both. The one liberty taken: the servers bind free ports (port 0) instead of
 * 8080/8081, which other tests on this machine may hold; the config's defaults are checked to be
 * exactly those ports, and the URLs are passed in the config's own variables.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const SHIPPED = join(ROOT, "config", "threatbridge.yaml");
const children: ChildProcess[] = [];
const dirs: string[] = [];
const CHECKOUT = closingHint({ kind: "checkout", root: ROOT, here: true });
const INSTALLED = closingHint({ kind: "installed", command: "threatbridge" });

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The hint's commands: its `backticked` parts, split into environment assignments and argv. */
function hintCommands(hint: string): { env: Record<string, string>; argv: string[] }[] {
  return [...hint.matchAll(/`([^`]+)`/g)].map((m) => {
    const words = (m[1] ?? "").split(/\s+/);
    const env: Record<string, string> = {};
    while (words[0]?.includes("=") === true) {
      const [name, ...value] = (words.shift() ?? "").split("=");
      env[name ?? ""] = value.join("=");
    }
    return { env, argv: words };
  });
}

/** `node dist/cli.js …` or `threatbridge …` as written, run with this node and this checkout's dist/cli.js. */
function toSpawnArgs(argv: string[]): string[] {
  if (argv[0] === "threatbridge") return [CLI, ...argv.slice(1)];
  expect(argv.slice(0, 2)).toEqual(["node", "dist/cli.js"]);
  return [CLI, ...argv.slice(2)];
}

/** The words after the program: `simulate --with-github …`, `sync`. */
function commandOf(argv: string[]): string[] {
  return argv[0] === "threatbridge" ? argv.slice(1) : argv.slice(2);
}

/** Runs one command of the hint in `cwd` to its end. */
function runToEnd(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, toSpawnArgs(argv), {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${argv.join(" ")} did not finish: ${stderr}`));
    }, 90_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** simulate --with-github as the hint writes it, on free ports; its two URLs from its banner. */
async function serveFakes(serve: { env: Record<string, string>; argv: string[] }): Promise<{
  server: ChildProcess;
  platformUrl: string;
  githubUrl: string;
  token: string;
}> {
  const server = spawn(process.execPath, [...toSpawnArgs(serve.argv), "--port", "0", "--github-port", "0"], {
    env: { PATH: process.env["PATH"] ?? "", ...serve.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(server);
  return new Promise((resolveUrls, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`simulate did not start: ${out}`)), 20_000);
    server.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const platform = /platform simulator on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      const github = /GitHub stand-in on (http:\/\/127\.0\.0\.1:\d+) \(token (\S+)\)/.exec(out);
      if (platform?.[1] && github?.[1] && github[2]) {
        clearTimeout(timer);
        resolveUrls({ server, platformUrl: platform[1], githubUrl: github[1], token: github[2] });
      }
    });
    server.once("exit", () => reject(new Error(`simulate exited: ${out}`)));
  });
}

describe("the demo's closing hint", () => {
  it("names simulate --with-github and a sync whose environment fits the shipped config's defaults", async () => {
    for (const hint of [CHECKOUT, INSTALLED]) {
      const commands = hintCommands(hint);
      const sync = commands.at(-1);
      expect(commands.some((c) => commandOf(c.argv).join(" ").startsWith("simulate --with-github"))).toBe(
        true,
      );
      expect(sync?.argv.at(-1)).toBe("sync");
      const { config } = parseConfigText(await readFile(SHIPPED, "utf8"), SHIPPED, sync?.env ?? {});
      expect(config.platform.base_url).toBe(`http://127.0.0.1:${SIMULATOR_PORT}`);
      expect(config.platform.token_url).toBe(`http://127.0.0.1:${SIMULATOR_PORT}/oauth/token`);
      expect(config.github.api_url).toBe(`http://127.0.0.1:${STAND_IN_PORT}`);
      expect(config.github.token).toBe(STAND_IN_TOKEN);
    }
  });

  it("names the commands as typed where the demo runs: node dist/cli.js in a checkout, threatbridge or npx threatbridge installed, docker in the image", () => {
    expect(CHECKOUT).toContain("from this directory: `node dist/cli.js simulate --with-github");
    expect(closingHint({ kind: "checkout", root: "/src/threatbridge", here: false })).toContain(
      "from /src/threatbridge: `node dist/cli.js simulate",
    );
    expect(INSTALLED).toContain("`threatbridge init` writes config/threatbridge.yaml there");
    expect(INSTALLED).not.toContain("dist/cli.js");
    const npx = closingHint({ kind: "installed", command: "npx threatbridge" });
    expect(hintCommands(npx).map((c) => c.argv.slice(0, 2).join(" "))).toEqual([
      "npx threatbridge",
      "npx threatbridge",
      "npx threatbridge",
    ]);
    const image: Place = { kind: "image" };
    const [serve, sync] = hintCommands(closingHint(image));
    expect(serve?.argv.slice(0, 3)).toEqual(["docker", "run", "--rm"]);
    expect(serve?.argv.join(" ")).toContain("simulate --with-github");
    // The sync runs inside the container that serves the fakes, where 127.0.0.1:8080/8081 are theirs.
    expect(sync?.argv.slice(0, 2)).toEqual(["docker", "exec"]);
    expect(sync?.argv.join(" ")).toContain(
      "-e GITHUB_TOKEN=ghp_standin threatbridge-fakes node dist/cli.js sync",
    );
  });

  // The two run at the same time: each is mostly the shipped config's write pacing (1 s apart).
  it.concurrent.each([
    ["a checkout", CHECKOUT],
    ["an installed package", INSTALLED],
  ])(
    "works as written from %s: the sync creates issues in the stand-in that simulate --with-github serves",
    async (_where, hint) => {
      assertBuilt();
      const commands = hintCommands(hint);
      const serve = commands.find((c) => commandOf(c.argv)[0] === "simulate");
      const sync = commands.at(-1);
      if (serve === undefined || sync === undefined) throw new Error("the hint serves the fakes and syncs");
      const { server, platformUrl, githubUrl, token } = await serveFakes(serve);
      expect(token).toBe(sync.env["GITHUB_TOKEN"]);

      const dir = await mkdtemp(join(tmpdir(), "threatbridge-hint-"));
      dirs.push(dir);
      if (hint === CHECKOUT) {
        // The checkout's hint runs from the repository root: a directory with config/threatbridge.yaml in it.
        await cp(SHIPPED, join(dir, "config", "threatbridge.yaml"));
      }
      for (const before of commands.filter((c) => c !== serve && c !== sync)) {
        const done = await runToEnd(before.argv, dir, before.env);
        expect(done.code, done.stderr).toBe(0);
      }
      const result = await runToEnd(sync.argv, dir, {
        ...sync.env,
        PLATFORM_BASE_URL: platformUrl,
        PLATFORM_TOKEN_URL: `${platformUrl}/oauth/token`,
        GITHUB_API_URL: githubUrl,
      });
      expect(result.code, result.stderr).toBe(0);
      const issues = await fetch(`${githubUrl}/repos/acme/security-threats/issues?state=all&per_page=100`, {
        headers: { authorization: `token ${token}` },
      });
      expect(issues.status).toBe(200);
      expect(((await issues.json()) as unknown[]).length).toBeGreaterThan(0);

      const exited = new Promise<number | null>((r) => server.once("exit", (code) => r(code)));
      server.kill("SIGTERM");
      expect(await exited).toBe(0);
    },
    120_000,
  );
});
