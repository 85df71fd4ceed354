import { describe, expect, it } from "vitest";
import { REPO, client, manualClock, statusOf, useStandIn } from "./helpers.js";

describe("GitHub stand-in: conditional requests and rate limits", () => {
  const start = useStandIn();

  it("conditional GET: a matching If-None-Match answers 304 and costs no rate-limit point", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "t" });
    const first = await gh.rest.issues.listForRepo(REPO);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^W\/".+"$/);
    const before = s.counters();
    const again = await statusOf(gh.rest.issues.listForRepo({ ...REPO, headers: { "if-none-match": etag } }));
    expect(again).toBe(304);
    const after = s.counters();
    expect(after.rateLimitPoints).toBe(before.rateLimitPoints);
    expect(after.notModified).toBe(before.notModified + 1);
    // A change makes the same conditional request answer 200 again, and that one costs a point.
    await gh.rest.issues.update({ ...REPO, issue_number: 1, title: "t2" });
    const changed = await gh.rest.issues.listForRepo({ ...REPO, headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(s.counters().rateLimitPoints).toBe(after.rateLimitPoints + 2);
  });

  it("sends x-ratelimit-* headers; GET /rate_limit does not count", async () => {
    const s = await start();
    const gh = client(s);
    const res = await gh.rest.issues.listForRepo(REPO);
    expect(res.headers["x-ratelimit-limit"]).toBe("5000");
    expect(res.headers["x-ratelimit-used"]).toBe("1");
    expect(res.headers["x-ratelimit-remaining"]).toBe("4999");
    expect(res.headers["x-ratelimit-resource"]).toBe("core");
    expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
    const rate = await gh.rest.rateLimit.get();
    expect(rate.data.resources.core.used).toBe(1);
    expect(s.counters().rateLimitPoints).toBe(1);
    expect(s.counters().byRoute).toMatchObject({
      "GET /repos/{owner}/{repo}/issues": 1,
      "GET /rate_limit": 1,
    });
  });

  it("primary limit: once the hour's points are spent, 403 with x-ratelimit-remaining 0 until the reset", async () => {
    const clock = manualClock();
    const s = await start({ clock, primaryLimit: { perHour: 2 } });
    const gh = client(s);
    await gh.rest.issues.listForRepo(REPO);
    await gh.rest.issues.listForRepo(REPO);
    const refused = await fetch(`${s.url}/repos/acme/security/issues`, {
      headers: { authorization: "token ghp_standin" },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    clock.advance(60 * 60 * 1000);
    expect((await gh.rest.issues.listForRepo(REPO)).status).toBe(200);
  });

  it("secondary limit: content-creating requests beyond perMinute get 403 with retry-after", async () => {
    const clock = manualClock();
    const s = await start({ clock, secondaryLimit: { perMinute: 2, perHour: 100 } });
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "1" });
    clock.advance(10_000);
    await gh.rest.issues.create({ ...REPO, title: "2" });
    const refused = await fetch(`${s.url}/repos/acme/security/issues`, {
      method: "POST",
      headers: { authorization: "token ghp_standin", "content-type": "application/json" },
      body: JSON.stringify({ title: "3" }),
    });
    expect(refused.status).toBe(403);
    // The oldest write leaves the rolling minute 50 s from now.
    expect(refused.headers.get("retry-after")).toBe("50");
    expect(await refused.json()).toMatchObject({ message: expect.stringMatching(/secondary rate limit/) });
    expect(s.counters().secondaryLimited).toBe(1);
    expect(s.issues("acme/security")).toHaveLength(2);
    // Reads are not content-creating and pass.
    expect((await gh.rest.issues.listForRepo(REPO)).status).toBe(200);
    clock.advance(50_000);
    expect((await gh.rest.issues.create({ ...REPO, title: "3" })).status).toBe(201);
  });

  it("secondary limit: perHour counts a rolling hour, and retryAfterSeconds overrides the computed wait", async () => {
    const clock = manualClock();
    const s = await start({ clock, secondaryLimit: { perMinute: 100, perHour: 2, retryAfterSeconds: 7 } });
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "1" });
    clock.advance(5 * 60_000);
    await gh.rest.issues.create({ ...REPO, title: "2" });
    clock.advance(5 * 60_000);
    const refused = await fetch(`${s.url}/repos/acme/security/issues`, {
      method: "POST",
      headers: { authorization: "token ghp_standin", "content-type": "application/json" },
      body: JSON.stringify({ title: "3" }),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("retry-after")).toBe("7");
    clock.advance(50 * 60_000);
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "3" }))).toBe("resolved");
  });
});
