import { afterEach, describe, expect, it } from "vitest";
import { WORKFLOW_FEATURES_YAML } from "./feature-config.js";
import { threatOf } from "./people-helpers.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" and "The conversation back": "`sync --dry-run` shows every one of these
 * writes before they happen" and "lists note writes and project writes like any other". On a
 * fresh state the writes of the workflow features follow the new issues themselves (a group's
 * parent once its members have issues, the weekly milestone a new issue is created in, its
 * project item, its note): the dry run lists them as the sync then writes them, one line each,
 * under the audit log's action names.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const PROJECT = `token: \${GITHUB_TOKEN}
  project:
    owner: acme
    number: 3
    fields:
      Severity: "{{ threat.severity }}"`;

function tally(actions: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const action of actions) counts[action] = (counts[action] ?? 0) + 1;
  return counts;
}

describe("sync --dry-run on a fresh state with the workflow features on", () => {
  it("contract, --dry-run shows every workflow write before it happens: the new issues' parents and attachments, weekly milestones, project items and notes, as the sync then writes them", async () => {
    world = await startWorld({ threats: 12, assets: 4 }, WORKFLOW_FEATURES_YAML, {
      standIn: { tokens: [GH_TOKEN] },
      githubAuthYaml: PROJECT,
      env: { THREATBRIDGE_LOG_LEVEL: "info" },
    });
    const w = world;
    w.gh.projects.create({
      owner: "acme",
      ownerType: "org",
      number: 3,
      fields: [{ name: "Severity", type: "single_select", options: ["critical", "high", "medium", "low"] }],
    });

    const dry = await w.run(["sync", "--dry-run", "--json", "-c", w.configPath]);
    expect(dry.code, dry.stderr + dry.stdout).toBe(0);
    const planned = tally(
      dry.stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => String((JSON.parse(l) as { action: unknown }).action)),
    );
    expect(w.gh.issues("acme/security-threats")).toHaveLength(0);

    const sync = await w.cli(["sync", "-c", w.configPath]);
    expect(sync.code).toBe(0);
    const done = tally(
      sync.stderr
        .split("\n")
        .filter((l) => l.includes('"audit":true'))
        .map((l) => String((JSON.parse(l) as { action: unknown }).action)),
    );
    expect(done["group"]).toBeGreaterThan(0);
    expect(done["milestone"]).toBeGreaterThan(0);
    // Each new issue's item is listed, and the PATCH of its fields once the item exists.
    for (const action of ["create", "group", "attach", "milestone", "note", "project"])
      expect(
        planned[action],
        `${action}: planned ${JSON.stringify(planned)}, done ${JSON.stringify(done)}`,
      ).toBe(done[action]);
  });

  it("contract, --dry-run lists note writes like any other: a person's close and a platform close are each listed with the note their new state calls for", async () => {
    world = await startWorld({ threats: 6 }, "notes: {}\n", { env: { THREATBRIDGE_LOG_LEVEL: "info" } });
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const [byPerson, byPlatform] = w.gh.issues(REPO).filter((i) => i.state === "open");
    if (!byPerson || !byPlatform) throw new Error("the seed has fewer than two open issues");
    w.gh.person.close(REPO, byPerson.number, { reason: "completed", login: "alice" });
    w.sim.sim.updateThreat(threatOf(byPlatform.body), { status: "solved" });

    const dry = await w.run(["sync", "--dry-run", "--json", "-c", w.configPath]);
    expect(dry.code).toBe(0);
    const planned = dry.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { action: string; issue?: number });
    const sync = await w.cli(["sync", "-c", w.configPath]);
    expect(sync.code).toBe(0);
    const done = sync.stderr
      .split("\n")
      .filter((l) => l.includes('"audit":true'))
      .map((l) => JSON.parse(l) as { action: string; issue?: string });
    const notes = (issue: number) => [
      planned.filter((l) => l.action === "note" && l.issue === issue).length,
      done.filter((l) => l.action === "note" && l.issue === `${REPO}#${issue}`).length,
    ];
    expect(notes(byPerson.number)).toEqual([1, 1]);
    expect(notes(byPlatform.number)).toEqual([1, 1]);
  });

  it("contract, the parent closes when all its members are closed: the dry run lists the parent's close and checklist with the members' closes", async () => {
    world = await startWorld({ threats: 0, assets: 2 }, "grouping:\n  by: cve\n");
    const w = world;
    const [first, second] = w.sim.sim.assetIds();
    const ids = [first, second].map(
      (asset) =>
        w.sim.sim.addThreat({
          name: "Spring4Shell CVE-2022-22965",
          severity: "high",
          status: "unsolved",
          asset_id: asset,
        }).id,
    );
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const parent = w.gh.issues(REPO).find((i) => i.labels.includes("threatbridge:group"));
    if (!parent) throw new Error("no parent was made");
    for (const id of ids) w.sim.sim.updateThreat(id, { status: "solved" });

    const dry = await w.run(["sync", "--dry-run", "--json", "-c", w.configPath]);
    expect(dry.code).toBe(0);
    const planned = dry.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { action: string; issue?: number; detail?: string });
    expect(planned.filter((l) => l.action === "close")).toHaveLength(2);
    expect(planned).toContainEqual(
      expect.objectContaining({ action: "group", issue: parent.number, detail: "close (completed)" }),
    );
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect(w.gh.issues(REPO).find((i) => i.number === parent.number)?.stateReason).toBe("completed");
  });
});
