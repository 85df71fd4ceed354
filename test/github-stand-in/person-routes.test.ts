import { describe, expect, it } from "vitest";
import { client, FULL, REPO, useStandIn } from "./helpers.js";

/**
 * `/_sim/*` on the stand-in: a person's close, reopen, comment and assignment over HTTP, with no
 * token, as the login named in "as" (never the connector's bot), free of rate-limit points.
 */

const start = useStandIn();

async function control(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("the stand-in's person controls (/_sim/*)", () => {
  it("close as a named person: the issue closes with the reason, its event's actor is that person, not via the app", async () => {
    const gh = await start();
    const { data: issue } = await client(gh).rest.issues.create({ ...REPO, title: "a threat" });
    const before = gh.counters().rateLimitPoints;
    const closed = await control(gh.url, "POST", `/_sim/repos/${FULL}/issues/${issue.number}/close`, {
      as: "alice",
      reason: "not_planned",
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      number: issue.number,
      state: "closed",
      state_reason: "not_planned",
      closed_by: "alice",
    });
    expect(gh.events(FULL, issue.number).at(-1)).toMatchObject({
      event: "closed",
      actor: "alice",
      viaApp: false,
    });
    // The connector reads the person's close as GitHub answers it.
    const { data: read } = await client(gh).rest.issues.get({ ...REPO, issue_number: issue.number });
    expect(read.closed_by?.login).toBe("alice");
    expect(gh.counters().rateLimitPoints - before).toBe(1); // the connector's GET only
  });

  it("reason defaults to completed; reopen, comment and assign act as the person named", async () => {
    const gh = await start();
    const { data: issue } = await client(gh).rest.issues.create({ ...REPO, title: "a threat" });
    const base = `/_sim/repos/${FULL}/issues/${issue.number}`;
    expect((await control(gh.url, "POST", `${base}/close`, { as: "alice" })).body).toMatchObject({
      state_reason: "completed",
    });
    expect((await control(gh.url, "POST", `${base}/reopen`, { as: "bob" })).body).toMatchObject({
      state: "open",
    });
    expect(gh.events(FULL, issue.number).at(-1)).toMatchObject({ event: "reopened", actor: "bob" });
    const commented = await control(gh.url, "POST", `${base}/comments`, {
      as: "carol",
      body: "looking at it",
    });
    expect(commented.body).toMatchObject({ comments: 1 });
    expect(gh.comments(FULL, issue.number)).toMatchObject([
      { user: "carol", body: "looking at it", viaApp: false },
    ]);
    const assigned = await control(gh.url, "POST", `${base}/assignees`, { as: "carol", assignees: ["dave"] });
    expect(assigned.body).toMatchObject({ assignees: ["dave"] });
    const listed = await control(gh.url, "GET", `/_sim/repos/${FULL}/issues`);
    expect(listed.body).toMatchObject([
      { number: issue.number, title: "a threat", state: "open", assignees: ["dave"] },
    ]);
  });

  it("a wrong request is named: no person (400), the bot's login as a person (400), an unknown field (400), no such issue (404), no JSON (400)", async () => {
    const gh = await start();
    const { data: issue } = await client(gh).rest.issues.create({ ...REPO, title: "a threat" });
    const base = `/_sim/repos/${FULL}/issues/${issue.number}`;
    const noPerson = await control(gh.url, "POST", `${base}/close`, {});
    expect(noPerson.status).toBe(400);
    expect(String(noPerson.body["message"])).toContain("as");
    expect((await control(gh.url, "POST", `${base}/close`, { as: "threatbridge[bot]" })).status).toBe(400);
    expect((await control(gh.url, "POST", `${base}/close`, { as: "alice", reasn: "completed" })).status).toBe(
      400,
    );
    expect(
      (await control(gh.url, "POST", `/_sim/repos/${FULL}/issues/999/close`, { as: "alice" })).status,
    ).toBe(404);
    const notJson = await fetch(`${gh.url}${base}/close`, { method: "POST", body: "as=alice" });
    expect(notJson.status).toBe(400);
    expect(gh.issues(FULL)[0]?.state).toBe("open");
  });
});
