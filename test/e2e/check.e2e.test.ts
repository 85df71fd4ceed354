import { createServer } from "node:net";
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Command line": `threatbridge check [-c FILE] [--json]` — a platform token, one page of
 * each stream, the GitHub credentials, and for every configured repository that it can be read,
 * has issues enabled, is not archived and that the credentials may write issues; one line per
 * check with a hint for each failure; exit 0 all pass, 1 any fails, 2 config. Run through the
 * built CLI against the simulator and the GitHub stand-in, whose repositories are declared here
 * (any other answers 404, as on GitHub): in a child process where its logs or its failing before
 * the network are checked, else through its `main` in this process.
 */

const READ_ONLY = { admin: false, maintain: false, push: false, triage: false, pull: true };

let world: World;
let baseConfig: string;

beforeAll(async () => {
  world = await startWorld({}, "", {
    standIn: {
      tokens: [GH_TOKEN],
      repositories: {
        [REPO]: {},
        "acme/urgent": {},
        "acme/archived": { archived: true },
        "acme/no-issues": { hasIssues: false },
        "acme/read-only": { permissions: READ_ONLY },
      },
    },
  });
  baseConfig = await readFile(world.configPath, "utf8");
});
afterAll(async () => {
  await world.close();
});

async function configWith(edit: (text: string) => string): Promise<void> {
  await writeFile(world.configPath, edit(baseConfig));
}

const routesTo = (...repos: string[]): string =>
  `routes:\n${repos.map((r) => `  - match: {}\n    repository: ${r}\n`).join("")}`;

function lines(stdout: string): string[] {
  return stdout.trim().split("\n");
}

function lineFor(stdout: string, what: string): string {
  const found = lines(stdout).find((l) => l.includes(what));
  if (found === undefined) throw new Error(`no line about ${what} in:\n${stdout}`);
  return found;
}

interface JsonCheck {
  check: string;
  status: "pass" | "fail" | "skip";
  detail: string;
  hint?: string;
  diagnosis?: string;
}

describe("threatbridge check (end to end)", () => {
  it("all pass: one line per check, the route's repository named by its key, exit 0", async () => {
    await configWith((t) => `${t}${routesTo("acme/urgent")}`);
    const r = await world.run(["check", "-c", world.configPath]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = lines(r.stdout);
    expect(out.slice(0, -1).every((l) => l.startsWith("ok "))).toBe(true);
    expect(out.at(-1)).toBe("all checks passed");
    expect(lineFor(r.stdout, "platform token")).toContain("a token was issued");
    expect(lineFor(r.stdout, "threat stream")).toMatch(/one page read/);
    expect(lineFor(r.stdout, "asset stream")).toMatch(/one page read/);
    expect(lineFor(r.stdout, "github credentials")).toContain("acting as");
    expect(lineFor(r.stdout, `repository ${REPO}`)).toContain("(github.repository)");
    expect(lineFor(r.stdout, "repository acme/urgent")).toContain("(routes[0].repository)");
    // It only reads: nothing was written to GitHub.
    expect(world.gh.counters().writes).toBe(0);
  });

  it("a repository typo (GitHub 404) fails with a hint naming github.repository or the route, exit 1", async () => {
    await configWith(
      (t) =>
        `${t.replace(`repository: ${REPO}`, "repository: acme/security-threat")}${routesTo("acme/urgnet")}`,
    );
    const r = await world.run(["check", "-c", world.configPath]);
    expect(r.code).toBe(1);
    const typo = lineFor(r.stdout, "repository acme/security-threat ");
    expect(typo).toMatch(/^FAIL /);
    expect(typo).toContain("check github.repository for a typo");
    expect(typo).toContain("has access to acme/security-threat");
    expect(lineFor(r.stdout, "repository acme/urgnet")).toContain("check routes[0].repository for a typo");
    // The rest still passes: the failure is pinned on the repositories.
    expect(lineFor(r.stdout, "github credentials")).toMatch(/^ok /);
    expect(lines(r.stdout).at(-1)).toBe("2 of 6 checks failed");
  });

  it("archived, issues disabled and read-only repositories each fail with what to fix (--json: one document)", async () => {
    await configWith((t) => `${t}${routesTo("acme/archived", "acme/no-issues", "acme/read-only")}`);
    const r = await world.run(["check", "-c", world.configPath, "--json"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { ok: boolean; checks: JsonCheck[] };
    expect(doc.ok).toBe(false);
    const about = (repo: string): JsonCheck | undefined => doc.checks.find((c) => c.check.includes(repo));
    expect(about(REPO)?.status).toBe("pass");
    expect(about("acme/archived")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("archived"),
    });
    expect(about("acme/archived")?.hint).toContain("unarchive acme/archived, or point routes[0].repository");
    expect(about("acme/no-issues")?.hint).toContain("enable Issues in the settings of acme/no-issues");
    expect(about("acme/read-only")?.detail).toContain("may read acme/read-only but not write its issues");
    expect(about("acme/read-only")?.hint).toContain("Issues: read and write");
  });

  it("a wrong platform secret is told as credentials; the streams are skipped, GitHub still checked", async () => {
    await configWith((t) => t);
    const saved = world.env["PLATFORM_CLIENT_SECRET"];
    world.env["PLATFORM_CLIENT_SECRET"] = "not-the-secret";
    try {
      const r = await world.cli(["check", "-c", world.configPath, "--json"]);
      expect(r.code).toBe(1);
      const doc = JSON.parse(r.stdout) as { checks: JsonCheck[] };
      const token = doc.checks.find((c) => c.check.startsWith("platform token"));
      expect(token).toMatchObject({ status: "fail", diagnosis: "credentials" });
      expect(token?.hint).toContain("client_secret");
      expect(doc.checks.filter((c) => c.status === "skip").map((c) => c.check)).toEqual([
        "platform threat stream (one page)",
        "platform asset stream (one page)",
      ]);
      expect(doc.checks.find((c) => c.check === "github credentials")?.status).toBe("pass");
      expect(r.stdout + r.stderr).not.toContain("not-the-secret");
    } finally {
      if (saved !== undefined) world.env["PLATFORM_CLIENT_SECRET"] = saved;
    }
  });

  it("an unreachable platform port (connection refused) is told as network, not credentials", async () => {
    const port = await closedPort();
    await configWith((t) => t.replaceAll(world.sim.url, `http://127.0.0.1:${port}`));
    const r = await world.run(["check", "-c", world.configPath]);
    expect(r.code).toBe(1);
    const token = lineFor(r.stdout, "platform token");
    expect(token).toMatch(/^FAIL /);
    expect(token).toContain(`hint: network: cannot connect to 127.0.0.1:${port}`);
    // One hint: the platform error's own is not said beside the check's.
    expect(token.match(/network:/g)).toHaveLength(1);
    expect(token).not.toContain("hint: credentials");
    expect(token).not.toContain("client_secret");
  });

  it("a config error exits 2 before any network call", async () => {
    await configWith((t) => `${t}schedule: "*/61 * * * *"\n`);
    const before = world.gh.counters().requests;
    const r = await world.cli(["check", "-c", world.configPath]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("schedule: minute field");
    expect(world.gh.counters().requests).toBe(before);
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
