import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { SIMULATE } from "../../src/cli/command-specs.js";
import { commandUsage } from "../../src/cli/usage.js";
import { resolveOptions } from "../../src/simulator/options.js";
import { assertBuilt, CLI, runMain } from "../e2e/world.js";

/**
 * `threatbridge simulate`'s command line: ports bound before anything is printed, a busy one
 * named with the flag that changes it (exit 2); every default in --help; numbers checked; the
 * banner gives the credentials to use.
 */

const ENV = { PATH: process.env["PATH"] ?? "" };
const held: Server[] = [];

afterAll(async () => {
  await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
});

/** A port of 127.0.0.1 that something else holds for the rest of the file. */
async function busyPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : 0;
}

describe("threatbridge simulate's command line", () => {
  it("a busy --port: exit 2 naming the port and --port, nothing printed on stdout", async () => {
    const port = await busyPort();
    const r = await runMain(["simulate", "--port", String(port)], ENV);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `threatbridge simulate: port ${port} on 127.0.0.1 is in use (the platform simulator's); choose another with --port N (0 picks a free one)\n`,
    );
  });

  it("only the GitHub port busy: exit 2 naming --github-port, no banner first, and the simulator's port freed again", async () => {
    const githubPort = await busyPort();
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const address = free.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    await new Promise((resolve) => free.close(resolve));
    const r = await runMain(
      ["simulate", "--port", String(port), "--with-github", "--github-port", String(githubPort)],
      ENV,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `port ${githubPort} on 127.0.0.1 is in use (the GitHub stand-in's); choose another with --github-port N`,
    );
    // The simulator it had started is closed: its port can be bound again.
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once("error", reject);
      again.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it("numbers are checked: --threats -5 or --port abc is a clear message and exit 2, not the parser's text", async () => {
    const negative = await runMain(["simulate", "--threats", "-5"], ENV);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain(
      'threatbridge: --threats takes a whole number from 0 to 1000000, got "-5"',
    );
    expect(negative.stderr).not.toContain("ambiguous");
    const word = await runMain(["simulate", "--port", "abc"], ENV);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('threatbridge: --port takes a whole number from 0 to 65535, got "abc"');
  });

  it("--help shows the default of every option that takes a value, and they are the simulator's own", () => {
    const usage = commandUsage(SIMULATE);
    for (const [name, option] of Object.entries(SIMULATE.options)) {
      if (option.type !== "string") continue;
      const row = usage.split("\n").find((line) => line.startsWith(`  --${name} `));
      expect(row, `--${name}`).toMatch(/\(default /);
    }
    const sim = resolveOptions({});
    const o = SIMULATE.options;
    expect([o.seed.default, o.assets.default, o.threats.default, o["token-ttl"].default]).toEqual(
      [sim.seed, sim.assets, sim.threats, sim.tokenTtlSeconds].map(String),
    );
    expect([o["client-id"].default, o["client-secret"].default]).toEqual([sim.clientId, sim.clientSecret]);
    expect([o["read-only-client-id"].default, o["read-only-client-secret"].default]).toEqual([
      sim.readOnlyClientId,
      sim.readOnlyClientSecret,
    ]);
  });

  it("the banner gives the client id and secret, the stand-in's token and where a person acts", async () => {
    assertBuilt();
    const child = spawn(
      process.execPath,
      [
        CLI,
        "simulate",
        "--port",
        "0",
        "--with-github",
        "--github-port",
        "0",
        "--client-id",
        "me",
        "--client-secret",
        "s3cret",
      ],
      { env: ENV, stdio: ["ignore", "pipe", "pipe"] },
    );
    const banner = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`simulate did not start: ${out}`)), 20_000);
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("Ctrl-C")) {
          clearTimeout(timer);
          resolve(out);
        }
      });
      child.once("exit", () => reject(new Error(`simulate exited: ${out}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(banner).toContain("client id me, secret s3cret");
    expect(banner).toMatch(/GitHub stand-in on http:\/\/127\.0\.0\.1:\d+ \(token ghp_standin\)/);
    expect(banner).toMatch(/_sim\/repos\/OWNER\/NAME\/issues\/N\//);
  });
});
