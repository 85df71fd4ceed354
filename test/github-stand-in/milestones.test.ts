import { describe, expect, it } from "vitest";
import { FULL, REPO, api, client, statusOf, useStandIn } from "./helpers.js";

/** GitHub's milestones REST API ("REST API endpoints for milestones"), as the stand-in serves it. */
describe("GitHub stand-in: milestones", () => {
  const start = useStandIn();

  it("due_on is kept as a US Pacific date: 12:00 UTC keeps the day, midnight UTC shows the day before", async () => {
    const gh = client(await start());
    const noon = await gh.rest.issues.createMilestone({
      ...REPO,
      title: "SLA 2026-01-11",
      due_on: "2026-01-11T12:00:00Z",
    });
    // Midnight Pacific in winter (PST, UTC-8).
    expect(noon.data.due_on).toBe("2026-01-11T08:00:00Z");
    const midnight = await gh.rest.issues.createMilestone({
      ...REPO,
      title: "m",
      due_on: "2026-01-11T00:00:00Z",
    });
    expect(midnight.data.due_on).toBe("2026-01-10T08:00:00Z");
    // In summer (PDT, UTC-7) midnight Pacific is 07:00 UTC.
    const summer = await gh.rest.issues.createMilestone({
      ...REPO,
      title: "s",
      due_on: "2026-07-05T12:00:00Z",
    });
    expect(summer.data.due_on).toBe("2026-07-05T07:00:00Z");
  });

  it("a duplicate title answers 422 already_exists (compared case-insensitively), on create and rename", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.createMilestone({ ...REPO, title: "SLA 2026-01-11" });
    const dup = await api(s, "POST", `/repos/${FULL}/milestones`, { title: "sla 2026-01-11" });
    expect(dup.status).toBe(422);
    expect(dup.data).toMatchObject({
      errors: [{ resource: "Milestone", code: "already_exists", field: "title" }],
    });
    const other = await gh.rest.issues.createMilestone({ ...REPO, title: "other" });
    const rename = await api(s, "PATCH", `/repos/${FULL}/milestones/${other.data.number}`, {
      title: "SLA 2026-01-11",
    });
    expect(rename.status).toBe(422);
  });

  it("list: open by default, sorted by due date (none last), paginated; state=all includes closed ones", async () => {
    const gh = client(await start());
    await gh.rest.issues.createMilestone({ ...REPO, title: "late", due_on: "2026-03-01T12:00:00Z" });
    await gh.rest.issues.createMilestone({ ...REPO, title: "none" });
    await gh.rest.issues.createMilestone({ ...REPO, title: "early", due_on: "2026-02-01T12:00:00Z" });
    const closed = await gh.rest.issues.createMilestone({ ...REPO, title: "closed", state: "closed" });
    expect(closed.data.closed_at).not.toBeNull();
    const open = await gh.rest.issues.listMilestones(REPO);
    expect(open.data.map((m) => m.title)).toEqual(["early", "late", "none"]);
    const all = await gh.rest.issues.listMilestones({ ...REPO, state: "all", per_page: 2, page: 2 });
    expect(all.data).toHaveLength(2);
  });

  it("update: due_on, state and description change; an unknown number answers 404", async () => {
    const gh = client(await start());
    const m = await gh.rest.issues.createMilestone({ ...REPO, title: "m" });
    const updated = await gh.rest.issues.updateMilestone({
      ...REPO,
      milestone_number: m.data.number,
      due_on: "2026-01-18T12:00:00Z",
      description: "d",
      state: "closed",
    });
    expect(updated.data).toMatchObject({ due_on: "2026-01-18T08:00:00Z", description: "d", state: "closed" });
    expect(
      await statusOf(gh.rest.issues.updateMilestone({ ...REPO, milestone_number: 99, title: "x" })),
    ).toBe(404);
  });

  it("an issue takes a milestone by number on create and update, shows it, and counts in it", async () => {
    const s = await start();
    const gh = client(s);
    const m = await gh.rest.issues.createMilestone({ ...REPO, title: "m" });
    const created = await gh.rest.issues.create({ ...REPO, title: "t", milestone: m.data.number });
    expect(created.data.milestone).toMatchObject({ number: m.data.number, title: "m", open_issues: 1 });
    await gh.rest.issues.update({ ...REPO, issue_number: created.data.number, state: "closed" });
    const got = await gh.rest.issues.getMilestone({ ...REPO, milestone_number: m.data.number });
    expect(got.data).toMatchObject({ open_issues: 0, closed_issues: 1 });
    const cleared = await gh.rest.issues.update({
      ...REPO,
      issue_number: created.data.number,
      milestone: null,
    });
    expect(cleared.data.milestone).toBeNull();
    expect(s.issues(FULL)[0]?.milestone).toBeNull();
  });

  it("an unknown milestone number on an issue answers 422 invalid and creates nothing", async () => {
    const s = await start();
    const res = await api(s, "POST", `/repos/${FULL}/issues`, { title: "t", milestone: 7 });
    expect(res.status).toBe(422);
    expect(res.data).toMatchObject({ errors: [{ resource: "Issue", code: "invalid", field: "milestone" }] });
    expect(s.issues(FULL)).toEqual([]);
  });
});
