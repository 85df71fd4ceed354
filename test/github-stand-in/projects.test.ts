import { describe, expect, it } from "vitest";
import type { RunningStandIn } from "../../src/github-stand-in/index.js";
import { REPO, api, client, useStandIn } from "./helpers.js";

const ORG_PROJECT = "/orgs/acme/projectsV2/7";

async function setUp(s: RunningStandIn) {
  const project = s.projects.create({
    owner: "acme",
    number: 7,
    fields: [
      { name: "Severity", type: "single_select", options: ["High", "Low"] },
      { name: "Notes", type: "text" },
      { name: "Score", type: "number" },
      { name: "Due", type: "date" },
    ],
  });
  const issue = await client(s).rest.issues.create({ ...REPO, title: "t" });
  const field = (name: string): number => project.fields[name]?.id ?? -1;
  return { project, issueId: issue.data.id, issueNumber: issue.data.number, field };
}

describe("GitHub stand-in: projects (REST API for projects, the current kind)", () => {
  const start = useStandIn();

  it("a repeated add of the same issue answers the existing item: at most one item per issue", async () => {
    const s = await start();
    const { issueId } = await setUp(s);
    const first = await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: issueId });
    const again = await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: issueId });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.data).toMatchObject({ id: (first.data as { id: number }).id, content_type: "Issue" });
    expect(s.projects.items("acme", 7)).toHaveLength(1);
  });

  it("adds by owner/repo/number too, and refuses an issue that does not exist (422)", async () => {
    const s = await start();
    const { issueId, issueNumber } = await setUp(s);
    const byNumber = await api(s, "POST", `${ORG_PROJECT}/items`, {
      type: "Issue",
      owner: "acme",
      repo: "security",
      number: issueNumber,
    });
    expect(byNumber.status).toBe(201);
    expect(s.projects.items("acme", 7).map((i) => i.issueId)).toEqual([issueId]);
    expect((await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: 999_999 })).status).toBe(422);
    expect((await api(s, "POST", `${ORG_PROJECT}/items`, { id: issueId })).status).toBe(422);
  });

  it("one PATCH sets text, number, date and a single-select option (by option id); null clears", async () => {
    const s = await start();
    const { project, issueId, field } = await setUp(s);
    const added = await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: issueId });
    const itemId = (added.data as { id: number }).id;
    const patched = await api(s, "PATCH", `${ORG_PROJECT}/items/${itemId}`, {
      fields: [
        { id: field("Severity"), value: project.fields["Severity"]?.options["High"] },
        { id: field("Notes"), value: "see the platform" },
        { id: field("Score"), value: 8.5 },
        { id: field("Due"), value: "2026-12-01" },
      ],
    });
    expect(patched.status).toBe(200);
    expect(s.projects.items("acme", 7)[0]?.values).toEqual({
      Severity: "High",
      Notes: "see the platform",
      Score: 8.5,
      Due: "2026-12-01",
    });
    await api(s, "PATCH", `${ORG_PROJECT}/items/${itemId}`, {
      fields: [{ id: field("Notes"), value: null }],
    });
    expect(s.projects.items("acme", 7)[0]?.values).not.toHaveProperty("Notes");
  });

  it("refuses a value of the wrong type, an unknown option, a bad date, an unknown field or the title (422), changing nothing", async () => {
    const s = await start();
    const { issueId, field } = await setUp(s);
    const added = await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: issueId });
    const url = `${ORG_PROJECT}/items/${(added.data as { id: number }).id}`;
    const bad = [
      { id: field("Score"), value: "eight" },
      { id: field("Notes"), value: 8 },
      { id: field("Severity"), value: "High" },
      { id: field("Due"), value: "01/12/2026" },
      { id: 424242, value: "x" },
      { id: field("Title"), value: "renamed" },
    ];
    for (const entry of bad) {
      const res = await api(s, "PATCH", url, { fields: [{ id: field("Notes"), value: "kept?" }, entry] });
      expect(res.status, JSON.stringify(entry)).toBe(422);
    }
    expect(s.projects.items("acme", 7)[0]?.values).toEqual({});
  });

  it("a person's board edit shows in the item's fields; a listing pages with cursors in Link", async () => {
    const s = await start();
    const { issueId, field } = await setUp(s);
    const other = await client(s).rest.issues.create({ ...REPO, title: "u" });
    await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: issueId });
    await api(s, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: other.data.id });
    s.projects.boardEdit("acme", 7, issueId, "severity", "low");
    const first = await api(s, "GET", `${ORG_PROJECT}/items?per_page=1&fields=${field("Severity")}`);
    expect(first.data).toMatchObject([
      {
        content: { id: issueId },
        fields: [{ name: "Title" }, { name: "Severity", value: { name: { raw: "Low" } } }],
      },
    ]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toContain("after=");
    const second = await fetch(next ?? "", { headers: { authorization: "token ghp_standin" } });
    expect(await second.json()).toMatchObject([{ content: { id: other.data.id } }]);
  });

  it("a user's project lives under /users; without the projects API every route answers 404", async () => {
    const s = await start();
    s.projects.create({ owner: "alice", ownerType: "user", number: 1 });
    expect((await api(s, "GET", "/users/alice/projectsV2/1")).status).toBe(200);
    expect((await api(s, "GET", "/orgs/alice/projectsV2/1")).status).toBe(404);
    const off = await start({ projects: false });
    off.projects.create({ owner: "acme", number: 7 });
    expect((await api(off, "GET", ORG_PROJECT)).status).toBe(404);
    expect((await api(off, "GET", `${ORG_PROJECT}/fields`)).status).toBe(404);
    expect((await api(off, "POST", `${ORG_PROJECT}/items`, { type: "Issue", id: 1 })).status).toBe(404);
  });
});
