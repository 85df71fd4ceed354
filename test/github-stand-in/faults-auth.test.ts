import { describe, expect, it } from "vitest";
import { FULL, REPO, client, statusOf, useStandIn } from "./helpers.js";

describe("GitHub stand-in: fault injection and authentication", () => {
  const start = useStandIn();

  it("lost response: the issue is created although the client saw an error", async () => {
    const s = await start();
    const gh = client(s);
    s.faults.loseNextResponse("POST", "/repos/{owner}/{repo}/issues");
    await expect(gh.rest.issues.create({ ...REPO, title: "lost" })).rejects.toThrow();
    expect(s.issues(FULL).map((i) => i.title)).toEqual(["lost"]);
    expect(s.counters().writes).toBe(1);
    // The fault is one-shot: the next request is answered.
    expect((await gh.rest.issues.create({ ...REPO, title: "seen" })).status).toBe(201);
  });

  it("lost response matches a concrete path too", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    s.faults.loseNextResponse("patch", "/repos/acme/security/issues/1");
    await expect(gh.rest.issues.update({ ...REPO, issue_number: 1, state: "closed" })).rejects.toThrow();
    expect(s.issues(FULL)[0]?.state).toBe("closed");
  });

  it("a fault's route pattern may name its parameters differently", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    s.faults.failNext("GET", "/repos/{o}/{r}/issues/{number}", 503);
    expect(await statusOf(gh.rest.issues.get({ ...REPO, issue_number: 1 }))).toBe(503);
    expect(await statusOf(gh.rest.issues.get({ ...REPO, issue_number: 1 }))).toBe("resolved");
  });

  it("failNext answers the status without processing the request", async () => {
    const s = await start();
    const gh = client(s);
    s.faults.failNext("POST", "/repos/{owner}/{repo}/issues", 502);
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "x" }))).toBe(502);
    expect(s.issues(FULL)).toHaveLength(0);
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "x" }))).toBe("resolved");
  });

  it("secondaryLimitNext answers 403 with retry-after and does not process the request", async () => {
    const s = await start();
    s.faults.secondaryLimitNext("POST", "/repos/{owner}/{repo}/issues", 3);
    const res = await fetch(`${s.url}/repos/acme/security/issues`, {
      method: "POST",
      headers: { authorization: "Bearer ghp_standin", "content-type": "application/json" },
      body: JSON.stringify({ title: "x" }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(s.counters().secondaryLimited).toBe(1);
    expect(s.issues(FULL)).toHaveLength(0);
  });

  it("auth: a missing or unknown token answers 401 Bad credentials; token and Bearer both work", async () => {
    const s = await start({ tokens: ["ghp_one"] });
    const none = await fetch(`${s.url}/repos/acme/security/issues`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ message: "Bad credentials" });
    expect(await statusOf(client(s, "ghp_wrong").rest.issues.listForRepo(REPO))).toBe(401);
    for (const scheme of ["token", "Bearer"]) {
      const ok = await fetch(`${s.url}/user`, { headers: { authorization: `${scheme} ghp_one` } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ login: "threatbridge[bot]", type: "Bot" });
    }
    expect(s.counters().rateLimitPoints).toBe(2);
  });

  it("every response carries x-github-request-id and a JSON content type", async () => {
    const s = await start();
    for (const res of [
      await fetch(`${s.url}/user`),
      await fetch(`${s.url}/rate_limit`, { headers: { authorization: "token ghp_standin" } }),
    ]) {
      expect(res.headers.get("x-github-request-id")).toMatch(/\S/);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    }
  });

  it("a malformed JSON body answers 400 Problems parsing JSON", async () => {
    const s = await start();
    const res = await fetch(`${s.url}/repos/acme/security/issues`, {
      method: "POST",
      headers: { authorization: "token ghp_standin", "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: "Problems parsing JSON" });
  });
});
