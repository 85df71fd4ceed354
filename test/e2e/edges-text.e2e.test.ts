import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  ISSUED_TOKEN,
  json,
  startTinyPlatform,
  useTinyPlatform,
  type TinyPlatform,
} from "./tiny-platform.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Secrets echoed by servers (a child process: its logs on stderr are what a person reads), bidi
 * spoofing, the body limit and a damaged state file (the built CLI's main in this process).
 */

let world: World | undefined;
let platform: TinyPlatform | undefined;
afterEach(async () => {
  await platform?.close();
  await world?.close();
  platform = undefined;
  world = undefined;
});

const SECRET = "tb-client-secret-9f8e7d";

/**
 * Everything a person could read: output of `sync` (a child process, logs at debug) and of
 * `status`, and the state file. `status` has no logger: all it shows goes through its Io, so it
 * runs in this process.
 */
async function everythingShown(w: World): Promise<string> {
  const sync = await w.cli(["sync", "-c", w.configPath]);
  expect(sync.code).toBe(1);
  const status = await w.run(["status", "-c", w.configPath]);
  const statusJson = await w.run(["status", "-c", w.configPath, "--json"]);
  const state = await readFile(w.statePath, "utf8").catch(() => "");
  return [sync.stdout, sync.stderr, status.stdout, status.stderr, statusJson.stdout, state].join("\n");
}

describe("secrets echoed by servers never reach logs, errors, status or the state", () => {
  it("a token endpoint echoing the Authorization header and the client secret", async () => {
    world = await startWorld({}, "", {
      env: { PLATFORM_CLIENT_SECRET: SECRET, THREATBRIDGE_LOG_LEVEL: "debug" },
    });
    let basic = "";
    platform = await startTinyPlatform((req, res) => {
      basic = req.headers.authorization ?? "";
      json(res, 401, {
        error: "invalid_client",
        error_description: `rejected Authorization: ${basic} (secret ${SECRET})`,
      });
    });
    await useTinyPlatform(world, platform.url);
    const shown = await everythingShown(world);
    expect(basic).toMatch(/^Basic /);
    expect(shown).toContain("invalid_client");
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toContain(basic.slice("Basic ".length));
  });

  it("an API echoing the bearer token issued, the Authorization header and the GitHub token", async () => {
    world = await startWorld({}, "", {
      env: { PLATFORM_CLIENT_SECRET: SECRET, THREATBRIDGE_LOG_LEVEL: "debug" },
    });
    platform = await startTinyPlatform((req, res) => {
      if (req.url?.startsWith("/oauth/token")) {
        json(res, 200, { access_token: ISSUED_TOKEN, token_type: "Bearer", expires_in: 300 });
        return;
      }
      json(res, 403, {
        type: "about:blank",
        status: 403,
        title: "Forbidden",
        detail: `token ${ISSUED_TOKEN} may not; Authorization: ${req.headers.authorization ?? ""}; also ${GH_TOKEN}`,
      });
    });
    await useTinyPlatform(world, platform.url);
    const shown = await everythingShown(world);
    expect(shown).toContain("403");
    expect(shown).not.toContain(ISSUED_TOKEN);
    expect(shown).not.toContain(GH_TOKEN);
  });
});

describe("GitHub's body limit applies to what is sent", () => {
  it("a threat with the longest description gets an issue whose body, revision line included, is within 65,536", async () => {
    world = await startWorld();
    const threat = world.sim.sim.addThreat({ description: "x".repeat(120_000), severity: "critical" });
    const result = await world.run(["sync", "-c", world.configPath]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const issue = world.gh.issues(REPO).find((i) => (i.body ?? "").includes(threat.id));
    expect(issue).toBeDefined();
    expect((issue?.body ?? "").length).toBeLessThanOrEqual(65_536);
    expect(issue?.body).toMatch(/<!-- threatbridge:rev=[0-9a-f]{8,64} -->\s*$/);
  });
});

describe("text that spoofs is inert", () => {
  it("bidi controls in a threat's title and description never reach the issue", async () => {
    world = await startWorld();
    const bidi = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
    const threat = world.sim.sim.addThreat({
      name: "Invoice \u202Egnp.exe\u202C",
      description: "Open \u2067the\u2069 attachment \u202Dnow\u202C \u200F!",
      severity: "critical",
    });
    const result = await world.run(["sync", "-c", world.configPath]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const issue = world.gh.issues(REPO).find((i) => (i.body ?? "").includes(threat.id));
    expect(issue).toBeDefined();
    expect(issue?.title).toContain("gnp.exe");
    expect(issue?.title).not.toMatch(bidi);
    expect(issue?.body ?? "").toContain("attachment");
    expect(issue?.body ?? "").not.toMatch(bidi);
  });
});

describe("status on a damaged state file (contract: status exits 0)", () => {
  it("prints the problem and exits 0", async () => {
    world = await startWorld();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    // The saved cursors' document, cut short.
    await writeFile(world.statePath, '{"format": "threatbridge-cursors", "version": 1, "values": ');
    const text = await world.run(["status", "-c", world.configPath]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/problem:.*not valid JSON/);
    const asJson = await world.run(["status", "-c", world.configPath, "--json"]);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      state_file: false,
      state_problem: expect.stringContaining("JSON"),
    });
  });
});
