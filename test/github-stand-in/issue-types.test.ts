import { describe, expect, it } from "vitest";
import { FULL, REPO, api, client, statusOf, useStandIn } from "./helpers.js";

/** GitHub's issue types: the organization's and the repository's list, and `type` on issues. */
describe("GitHub stand-in: issue types", () => {
  const start = useStandIn();
  const withTypes = { issueTypes: { acme: ["Bug", "Vulnerability"] } };

  it("GET /orgs/{org}/issue-types and GET /repos/{owner}/{repo}/issue-types list the owner's types", async () => {
    const s = await start(withTypes);
    const gh = client(s);
    const org = await gh.rest.orgs.listIssueTypes({ org: "acme" });
    expect(org.data.map((t) => t?.name)).toEqual(["Bug", "Vulnerability"]);
    const repo = await api(s, "GET", `/repos/${FULL}/issue-types`);
    expect(repo.status).toBe(200);
    expect(repo.data).toEqual(org.data);
  });

  it("an owner without types: the repository offers none, the organization route answers 404", async () => {
    const s = await start(withTypes);
    const repo = await api(s, "GET", "/repos/alice/tools/issue-types");
    expect(repo).toMatchObject({ status: 200, data: [] });
    expect(await statusOf(client(s).rest.orgs.listIssueTypes({ org: "alice" }))).toBe(404);
  });

  it("type on create (by name, case-insensitive) and update; the issue JSON carries the type object", async () => {
    const s = await start(withTypes);
    const gh = client(s);
    const created = await api(s, "POST", `/repos/${FULL}/issues`, { title: "t", type: "vulnerability" });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ type: { name: "Vulnerability" } });
    const changed = await api(s, "PATCH", `/repos/${FULL}/issues/1`, { type: "Bug" });
    expect(changed.data).toMatchObject({ type: { name: "Bug" } });
    const cleared = await api(s, "PATCH", `/repos/${FULL}/issues/1`, { type: null });
    expect(cleared.data).toMatchObject({ type: null });
    expect(s.issues(FULL)[0]?.type).toBeNull();
    const plain = await gh.rest.issues.create({ ...REPO, title: "no type" });
    expect(plain.data.type).toBeNull();
  });

  it("an unknown type answers 422 invalid on field type and creates nothing", async () => {
    const s = await start(withTypes);
    const res = await api(s, "POST", `/repos/${FULL}/issues`, { title: "t", type: "Epic" });
    expect(res.status).toBe(422);
    expect(res.data).toMatchObject({ errors: [{ resource: "Issue", code: "invalid", field: "type" }] });
    expect(s.issues(FULL)).toEqual([]);
    const elsewhere = await api(s, "POST", "/repos/alice/tools/issues", { title: "t", type: "Bug" });
    expect(elsewhere.status).toBe(422);
  });

  it("without issue types at all (GitHub Enterprise Server): both routes 404, `type` ignored, no type field", async () => {
    const s = await start({ issueTypes: "unavailable" });
    expect((await api(s, "GET", `/repos/${FULL}/issue-types`)).status).toBe(404);
    expect((await api(s, "GET", "/orgs/acme/issue-types")).status).toBe(404);
    const created = await api(s, "POST", `/repos/${FULL}/issues`, { title: "t", type: "Bug" });
    expect(created.status).toBe(201);
    expect(created.data).not.toHaveProperty("type");
  });
});
