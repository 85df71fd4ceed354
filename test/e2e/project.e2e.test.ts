import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, GH_TOKEN, type World } from "./world.js";

/**
 * `github.project` through the built CLI against the GitHub stand-in (the real gateway): a user's
 * project (`/users/{owner}/…` after the organization's path answers 404), issues made before the
 * project was configured joining it, the dry run naming the writes `project`, the echo and an idle
 * cycle costing no project request; and a GitHub without the projects API: said by `check`, off.
 */
const PROJECT_YAML = (owner: string) => `token: \${GITHUB_TOKEN}
  project:
    owner: ${owner}
    number: 1
    fields:
      Severity: "{{ threat.severity }}"
      Module: "{{ threat.module }}"
      Missing: "{{ threat.title }}"`;

const projectRequests = (world: World): number =>
  Object.entries(world.gh.counters().byRoute)
    .filter(([route]) => route.includes("projectsV2"))
    .reduce((sum, [, n]) => sum + n, 0);

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("github.project end to end", () => {
  it("a user's project: older issues join once, fields set, the dry run names them, idle costs nothing", async () => {
    world = await startWorld({ threats: 6, assets: 2 });
    const w = world;
    w.gh.projects.create({
      owner: "alice",
      ownerType: "user",
      number: 1,
      fields: [
        {
          name: "Severity",
          type: "single_select",
          options: ["Critical", "High", "Medium", "Low", "Informational"],
        },
        { name: "Module", type: "text" },
      ],
    });
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const issues = w.gh.issues("acme/security-threats").length;
    expect(issues).toBeGreaterThan(0);
    expect(projectRequests(w)).toBe(0);

    // The project is configured after the issues exist.
    const text = await readFile(w.configPath, "utf8");
    await writeFile(w.configPath, text.replace("token: ${GITHUB_TOKEN}", PROJECT_YAML("alice")));

    const dry = await w.run(["sync", "-c", w.configPath, "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const lines = dry.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { action?: string; detail?: string });
    // Each older issue's item, and the PATCH of its fields that follows the add in the same cycle.
    const project = lines.filter((l) => l.action === "project");
    expect(project.filter((l) => l.detail === "add the issue to the project").length).toBe(issues);
    expect(project.filter((l) => l.detail?.startsWith("set ")).length).toBe(issues);
    expect(w.gh.projects.items("alice", 1)).toEqual([]);

    const check = await w.run(["check", "-c", w.configPath]);
    expect(check.stdout).toMatch(/project alice\/1 .*found, as a user's/);
    expect(check.stdout).toMatch(/no field "Missing"/);

    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const items = w.gh.projects.items("alice", 1);
    expect(items.length).toBe(issues);
    expect(new Set(items.map((i) => i.issueId)).size).toBe(issues);
    for (const item of items) {
      expect(item.values["Severity"]).toMatch(/^(Critical|High|Medium|Low|Informational)$/);
      expect(typeof item.values["Module"]).toBe("string");
    }
    const status = await w.run(["status", "-c", w.configPath, "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({ project: { items: issues } });

    // The echo of its own writes, then an idle cycle: no project request at all.
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const before = projectRequests(w);
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect(projectRequests(w)).toBe(before);
  }, 120_000);

  it("no projects API (GitHub Enterprise Server): check says so, sync creates issues and adds nothing", async () => {
    world = await startWorld({ threats: 4, assets: 2 }, "", {
      standIn: { tokens: [GH_TOKEN], projects: false },
      githubAuthYaml: PROJECT_YAML("acme"),
    });
    const w = world;
    const check = await w.run(["check", "-c", w.configPath]);
    expect(check.stdout).toMatch(/project acme\/1 not found .*project items are off/);
    // The organization's path, then the user's: both 404.
    expect(projectRequests(w)).toBe(2);
    const sync = await w.run(["sync", "-c", w.configPath]);
    expect(sync.code).toBe(0);
    expect(w.gh.issues("acme/security-threats").length).toBeGreaterThan(0);
    // Looked up once in the process (both paths), then off: no add, no retry loop.
    expect(projectRequests(w)).toBe(4);
    expect(w.gh.counters().byRoute["POST /orgs/{org}/projectsV2/{project_number}/items"] ?? 0).toBe(0);
  }, 120_000);
});
