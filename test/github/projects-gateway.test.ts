import { afterEach, describe, expect, it } from "vitest";
import { createGitHub, GitHubError, type Project } from "../../src/github/index.js";
import {
  startGitHubStandIn,
  type RunningStandIn,
  type StandInOptions,
} from "../../src/github-stand-in/index.js";
import { fakeTime } from "./fake-time.js";

const REPO = "acme/threats";
const ITEMS = "/orgs/{org}/projectsV2/{project_number}/items";
let standIn: RunningStandIn | undefined;

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function setUp(
  standInOpts: StandInOptions = {},
  budget = { perMinute: 0, perHour: 0, minIntervalMs: 0 },
) {
  const time = fakeTime(Date.now());
  const s = await startGitHubStandIn(standInOpts);
  standIn = s;
  const gh = createGitHub({
    apiUrl: s.url,
    auth: { token: "ghp_standin" },
    writeBudget: budget,
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
  });
  const made = s.projects.create({
    owner: "acme",
    number: 7,
    fields: [
      { name: "Severity", type: "single_select", options: ["High", "Low"] },
      { name: "Notes", type: "text" },
      { name: "Score", type: "number" },
      { name: "Due", type: "date" },
    ],
  });
  const issue = async (title: string) =>
    gh.createIssue(REPO, { title, body: "b", labels: [], assignees: [] });
  const project = async (): Promise<Project> => {
    const found = await gh.getProject({ owner: "acme", number: 7, via: REPO });
    if (!found.available) throw new Error(`project unavailable: ${found.message}`);
    return found.project;
  };
  return { gh, s, time, made, issue, project };
}

describe("GitHub gateway: projects (against the stand-in)", () => {
  it("finds an organization's project, and a user's where the owner is no organization", async () => {
    const { gh, s, made } = await setUp();
    expect(await gh.getProject({ owner: "acme", number: 7, via: REPO })).toMatchObject({
      available: true,
      project: { ownerType: "org", id: made.id, number: 7 },
    });
    s.projects.create({ owner: "alice", ownerType: "user", number: 2 });
    expect(await gh.getProject({ owner: "alice", number: 2, via: REPO })).toMatchObject({
      available: true,
      project: { ownerType: "user", owner: "alice", number: 2 },
    });
    expect(await gh.getProject({ owner: "acme", number: 99, via: REPO })).toMatchObject({
      available: false,
      status: 404,
    });
  });

  it("where the projects API is missing (GHES), every call answers unavailable, never a throw", async () => {
    const { gh } = await setUp({ projects: false });
    expect(await gh.getProject({ owner: "acme", number: 7, via: REPO })).toMatchObject({
      available: false,
      status: 404,
    });
  });

  it("lists the fields by name with their types and single-select options", async () => {
    const { gh, made, project } = await setUp();
    const fields = await gh.listProjectFields(await project());
    if (!fields.available) throw new Error("fields unavailable");
    expect(fields.fields.find((f) => f.name === "Severity")).toEqual({
      id: made.fields["Severity"]?.id,
      name: "Severity",
      type: "single_select",
      options: [
        { id: made.fields["Severity"]?.options["High"], name: "High" },
        { id: made.fields["Severity"]?.options["Low"], name: "Low" },
      ],
    });
    expect(fields.fields.map((f) => [f.name, f.type])).toEqual([
      ["Title", "title"],
      ["Severity", "single_select"],
      ["Notes", "text"],
      ["Score", "number"],
      ["Due", "date"],
    ]);
  });

  it("at most one item per issue: after an add whose answer was lost, findProjectItem finds the item, so no second add is needed", async () => {
    const { gh, s, project } = await setUp();
    const p = await project();
    const created = await issue(gh);
    s.faults.loseNextResponse("POST", ITEMS);
    const lost = await gh.addProjectItem(p, created).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(GitHubError);
    expect((lost as GitHubError).code).toBe("outcome_unknown");
    const found = await gh.findProjectItem(p, created);
    expect(found).toMatchObject({ available: true, item: { issueId: created } });
    expect(s.projects.items("acme", 7)).toHaveLength(1);
    const other = await gh.createIssue(REPO, { title: "not added", body: "b", labels: [], assignees: [] });
    expect(await gh.findProjectItem(p, other.id ?? -1)).toEqual({ available: true, item: null });
  });

  it("findProjectItem pages through the items (cursor Link headers) until it finds the issue's", async () => {
    // The stand-in's pages hold at most 10 here, so 25 items take three pages.
    const { gh, project } = await setUp({ perPageMax: 10 });
    const p = await project();
    let last = -1;
    for (let n = 0; n < 25; n++) {
      last = await issue(gh);
      await gh.addProjectItem(p, last);
    }
    expect(await gh.findProjectItem(p, last)).toMatchObject({ available: true, item: { issueId: last } });
  });

  it("sets every changed field in ONE PATCH (text, number, date, option by id) and reads a person's board edit back", async () => {
    const { gh, s, made, project } = await setUp();
    const p = await project();
    const id = await issue(gh);
    const added = await gh.addProjectItem(p, id);
    if (!added.available) throw new Error("add unavailable");
    const f = (name: string): number => made.fields[name]?.id ?? -1;
    const patchesBefore = s.counters().byRoute[`PATCH ${ITEMS}/{item_id}`] ?? 0;
    const result = await gh.updateProjectItemFields(p, added.item.id, [
      { fieldId: f("Severity"), value: made.fields["Severity"]?.options["High"] ?? "" },
      { fieldId: f("Notes"), value: "see the platform" },
      { fieldId: f("Score"), value: 8.5 },
      { fieldId: f("Due"), value: "2026-12-01" },
    ]);
    expect(result).toEqual({ available: true, outcome: "updated" });
    expect(s.counters().byRoute[`PATCH ${ITEMS}/{item_id}`]).toBe(patchesBefore + 1);
    s.projects.boardEdit("acme", 7, id, "Notes", "a person's note");
    const read = await gh.getProjectItem(p, added.item.id, [f("Severity"), f("Notes"), f("Score"), f("Due")]);
    expect(read).toMatchObject({
      available: true,
      item: {
        issueId: id,
        values: {
          [f("Severity")]: made.fields["Severity"]?.options["High"],
          [f("Notes")]: "a person's note",
          [f("Score")]: 8.5,
          [f("Due")]: "2026-12-01",
        },
      },
    });
  });

  it("a value GitHub refuses (unknown option) is `refused` with GitHub's message, and nothing changes", async () => {
    const { gh, s, made, project } = await setUp();
    const p = await project();
    const id = await issue(gh);
    const added = await gh.addProjectItem(p, id);
    if (!added.available) throw new Error("add unavailable");
    const result = await gh.updateProjectItemFields(p, added.item.id, [
      { fieldId: made.fields["Notes"]?.id ?? -1, value: "x" },
      { fieldId: made.fields["Severity"]?.id ?? -1, value: "no-such-option" },
    ]);
    expect(result).toMatchObject({
      available: true,
      outcome: "refused",
      message: expect.stringMatching(/Option/),
    });
    expect(s.projects.items("acme", 7)[0]?.values).toEqual({});
  });

  it("adds and updates are writes paced by the write budget (one per minute here); no changes, no write", async () => {
    const { gh, time, made, project } = await setUp({}, { perMinute: 1, perHour: 0, minIntervalMs: 0 });
    const p = await project();
    const id = await issue(gh);
    const before = time.clock.now();
    const added = await gh.addProjectItem(p, id);
    if (!added.available) throw new Error("add unavailable");
    await gh.updateProjectItemFields(p, added.item.id, [
      { fieldId: made.fields["Notes"]?.id ?? -1, value: "x" },
    ]);
    await gh.updateProjectItemFields(p, added.item.id, []);
    // Three writes (create, add, update) at one a minute: the last two waited about a minute each.
    expect(time.clock.now() - before).toBeGreaterThanOrEqual(2 * 55_000);
    expect(gh.stats().writes).toBe(3);
  });
});

async function issue(gh: ReturnType<typeof createGitHub>): Promise<number> {
  const created = await gh.createIssue(REPO, { title: "t", body: "b", labels: [], assignees: [] });
  if (created.id === null || created.id === undefined) throw new Error("issue without id");
  return created.id;
}
