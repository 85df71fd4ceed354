import { describe, expect, it } from "vitest";
import { FULL, REPO, client, useStandIn } from "./helpers.js";

describe("GitHub stand-in: people's actions and the issue events the connector reads", () => {
  const start = useStandIn();

  it("a person's close is an event with the person as actor and no app", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    const pointsBefore = s.counters().rateLimitPoints;
    s.person.close(FULL, 1, { reason: "not_planned", login: "alice" });
    expect(s.counters().rateLimitPoints).toBe(pointsBefore);
    const events = await gh.rest.issues.listEvents({ ...REPO, issue_number: 1 });
    expect(events.data).toHaveLength(1);
    expect(events.data[0]).toMatchObject({
      event: "closed",
      actor: { login: "alice", type: "User" },
      performed_via_github_app: null,
      state_reason: "not_planned",
    });
    const issue = await gh.rest.issues.get({ ...REPO, issue_number: 1 });
    expect(issue.data).toMatchObject({
      state: "closed",
      state_reason: "not_planned",
      closed_by: { login: "alice" },
    });
  });

  it("the connector's own close is an event with the bot as actor (token mode: no app)", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    await gh.rest.issues.update({ ...REPO, issue_number: 1, state: "closed", state_reason: "completed" });
    s.person.reopen(FULL, 1, "bob");
    const events = await gh.rest.issues.listEvents({ ...REPO, issue_number: 1 });
    expect(events.data.map((e) => [e.event, e.actor?.login, e.performed_via_github_app])).toEqual([
      ["closed", "threatbridge[bot]", null],
      ["reopened", "bob", null],
    ]);
    expect(s.issues(FULL)[0]).toMatchObject({ state: "open", stateReason: "reopened", closedBy: null });
  });

  it("relabel, title edits and comments by a person are recorded with the person's login", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t", labels: ["threatbridge", "high"] });
    s.person.relabel(FULL, 1, ["threatbridge", "triaged"], "carol");
    s.person.editTitle(FULL, 1, "renamed", "carol");
    s.person.comment(FULL, 1, "looking", "carol");
    const events = s.events(FULL, 1).filter((e) => e.actor === "carol");
    expect(events.map((e) => [e.event, e.label?.name ?? e.rename?.to])).toEqual([
      ["unlabeled", "high"],
      ["labeled", "triaged"],
      ["renamed", "renamed"],
    ]);
    expect(s.issues(FULL)[0]).toMatchObject({
      title: "renamed",
      labels: ["threatbridge", "triaged"],
      comments: 1,
    });
    const comments = await gh.rest.issues.listComments({ ...REPO, issue_number: 1 });
    expect(comments.data[0]?.user?.login).toBe("carol");
  });

  it("an unchanged PATCH records no event and leaves updated_at alone", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t", labels: ["a"] });
    const before = s.issues(FULL)[0];
    await gh.rest.issues.update({ ...REPO, issue_number: 1, title: "t", labels: ["a"], state: "open" });
    expect(s.events(FULL, 1)).toHaveLength(1);
    expect(s.issues(FULL)[0]?.updatedAt).toBe(before?.updatedAt);
  });

  it("repository-wide lists: every event newest first with its issue, every comment oldest first", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "one" });
    await gh.rest.issues.create({ ...REPO, title: "two" });
    s.person.close(FULL, 2, { reason: "completed", login: "alice" });
    s.person.close(FULL, 1, { reason: "not_planned", login: "bob" });
    s.person.comment(FULL, 2, "first", "alice");
    s.person.comment(FULL, 1, "second", "bob");
    const events = await gh.rest.issues.listEventsForRepo(REPO);
    expect(events.data.map((e) => [e.event, e.actor?.login, e.issue?.number])).toEqual([
      ["closed", "bob", 1],
      ["closed", "alice", 2],
    ]);
    const comments = await gh.rest.issues.listCommentsForRepo(REPO);
    expect(comments.data.map((c) => [c.body, c.issue_url.split("/").pop()])).toEqual([
      ["first", "2"],
      ["second", "1"],
    ]);
  });
});
