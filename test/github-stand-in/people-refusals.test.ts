import { describe, expect, it } from "vitest";
import { FULL, REPO, client, statusOf, useStandIn } from "./helpers.js";

describe("GitHub stand-in: people who lock, archive, delete and transfer", () => {
  const start = useStandIn();

  it("a locked conversation refuses the connector's comment with 403, and the issue is still readable", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    s.person.lock(FULL, 1, "alice");
    expect(await statusOf(gh.rest.issues.createComment({ ...REPO, issue_number: 1, body: "hi" }))).toBe(403);
    expect((await gh.rest.issues.get({ ...REPO, issue_number: 1 })).data.number).toBe(1);
  });

  it("an archived repository refuses every write with 403 and still answers reads", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    s.person.archive(FULL);
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "u" }))).toBe(403);
    expect(await statusOf(gh.rest.issues.update({ ...REPO, issue_number: 1, title: "v" }))).toBe(403);
    expect((await gh.rest.issues.listForRepo({ ...REPO, state: "all" })).data).toHaveLength(1);
  });

  it("a deleted issue answers 410 and leaves the list", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    await gh.rest.issues.create({ ...REPO, title: "u" });
    s.person.deleteIssue(FULL, 1);
    expect(await statusOf(gh.rest.issues.get({ ...REPO, issue_number: 1 }))).toBe(410);
    expect((await gh.rest.issues.listForRepo({ ...REPO, state: "all" })).data.map((i) => i.number)).toEqual([
      2,
    ]);
  });

  it("a transferred issue answers 301 to its new place, which a client following redirects reads and writes", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t", labels: ["threatbridge"] });
    const moved = s.person.transfer(FULL, 1, "acme/elsewhere", "alice");
    const raw = await fetch(`${s.url}/repos/${FULL}/issues/1`, {
      headers: { authorization: "token ghp_standin" },
      redirect: "manual",
    });
    expect(raw.status).toBe(301);
    expect(raw.headers.get("location")).toBe(`${s.url}/repos/acme/elsewhere/issues/${moved}`);
    const read = await gh.rest.issues.get({ ...REPO, issue_number: 1 });
    expect(read.data.repository_url).toBe(`${s.url}/repos/acme/elsewhere`);
    await gh.rest.issues.update({ ...REPO, issue_number: 1, title: "renamed" });
    expect(s.issues("acme/elsewhere")[0]?.title).toBe("renamed");
    expect(s.issues(FULL)).toHaveLength(0);
  });

  it("a write hook runs a person's action between two writes, at an exact point", async () => {
    const s = await start();
    const gh = client(s);
    s.faults.afterWrites(2, () => s.person.close(FULL, 1, { reason: "completed", login: "alice" }));
    await gh.rest.issues.create({ ...REPO, title: "t" });
    expect(s.issues(FULL)[0]?.state).toBe("open");
    const second = await gh.rest.issues.update({ ...REPO, issue_number: 1, title: "u" });
    // The hook ran right after the second write was processed: its answer predates the close,
    // and the connector's next write is answered with the person's close.
    expect(second.data.state).toBe("open");
    expect(s.issues(FULL)[0]?.closedBy).toBe("alice");
    const third = await gh.rest.issues.update({ ...REPO, issue_number: 1, title: "v" });
    expect(third.data.state).toBe("closed");
  });

  it("a refused body answers 422 once and is not processed", async () => {
    const s = await start();
    const gh = client(s);
    s.faults.refuseBodyNext("POST", "/repos/{owner}/{repo}/issues");
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "t" }))).toBe(422);
    expect(s.issues(FULL)).toHaveLength(0);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    expect(s.issues(FULL)).toHaveLength(1);
  });
});
