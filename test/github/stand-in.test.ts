import { generateKeyPairSync } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitHub, type GitHubGateway } from "../../src/github/index.js";
import { markerFor } from "../../src/shared/index.js";
import { startGitHubStandIn, type RunningStandIn } from "../../src/github-stand-in/index.js";
import { fakeTime } from "./fake-time.js";

const REPO = "acme/threats";
const THREAT = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";
const input = (threatId: string) => ({
  title: "Leaked credential",
  body: `body\n${markerFor(threatId)}`,
  labels: ["high"],
  assignees: [],
});
let standIn: RunningStandIn;
let gh: GitHubGateway;
let time = fakeTime();

beforeEach(async () => {
  time = fakeTime(Date.now());
  standIn = await startGitHubStandIn({});
  gh = createGitHub({
    apiUrl: standIn.url,
    auth: { token: "ghp_standin" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
  });
});

afterEach(async () => {
  await standIn.close();
});

describe("GitHub gateway against the GitHub stand-in", () => {
  it("creates, lists changes (conditionally), and tells a person's close from its own", async () => {
    const created = await gh.createIssue(REPO, input(THREAT));
    expect(created).toMatchObject({
      repo: REPO,
      number: 1,
      threatId: THREAT,
      labels: expect.arrayContaining(["threatbridge", "high"]),
    });
    standIn.person.openPullRequest(REPO, "a PR", ["threatbridge"], "alice");

    const changes = await gh.listChangedIssues(REPO, null);
    expect(changes.issues.map((i) => i.number)).toEqual([1]);
    const points = standIn.counters().rateLimitPoints;
    expect(await gh.listChangedIssues(REPO, null)).toEqual({
      notModified: true,
      issues: [],
      consistent: true,
    });
    expect(standIn.counters().rateLimitPoints).toBe(points);
    expect(standIn.counters().notModified).toBe(1);

    standIn.person.close(REPO, 1, { reason: "not_planned", login: "alice" });
    const afterClose = await gh.listChangedIssues(REPO, null);
    expect(afterClose.issues).toMatchObject([{ number: 1, state: "closed", stateReason: "not_planned" }]);
    expect(await gh.lastStateChange(REPO, 1)).toMatchObject({
      event: "closed",
      login: "alice",
      bySelf: false,
      stateReason: "not_planned",
    });

    await gh.updateIssue(REPO, 1, { state: "open", stateReason: "reopened" });
    expect(await gh.lastStateChange(REPO, 1)).toMatchObject({
      event: "reopened",
      login: "threatbridge[bot]",
      bySelf: true,
    });
    expect(await gh.whoAmI()).toBe("threatbridge[bot]");
  });

  it("a lost create response is outcome_unknown after exactly one write, and the marker finds the issue", async () => {
    standIn.faults.loseNextResponse("POST", "/repos/{owner}/{repo}/issues");
    await expect(gh.createIssue(REPO, input(THREAT))).rejects.toMatchObject({ code: "outcome_unknown" });
    expect(standIn.counters().writes).toBe(1);
    expect(standIn.issues(REPO)).toHaveLength(1);
    expect(await gh.findIssueByMarker(REPO, THREAT)).toMatchObject({ number: 1, threatId: THREAT });
    expect(standIn.counters().writes).toBe(1);
  });

  it("a 5xx on a GET is retried; on a create it is outcome_unknown", async () => {
    await gh.createIssue(REPO, input(THREAT));
    standIn.faults.failNext("GET", "/repos/{owner}/{repo}/issues/{number}", 502);
    expect(await gh.getIssue(REPO, 1)).toMatchObject({ number: 1 });
    standIn.faults.failNext("POST", "/repos/{owner}/{repo}/issues/{number}/comments", 503);
    await expect(gh.createComment(REPO, 1, "hello")).rejects.toMatchObject({ code: "outcome_unknown" });
    expect(standIn.comments(REPO, 1)).toHaveLength(0);
  });

  it("a secondary limit on a create pauses every write", async () => {
    standIn.faults.secondaryLimitNext("POST", "/repos/{owner}/{repo}/issues", 30);
    const t0 = time.clock.now();
    await expect(gh.createIssue(REPO, input(THREAT))).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterMs: 30_000,
    });
    expect(gh.stats().secondaryLimitHits).toBe(1);
    expect(gh.budget.nextSlotAt()).toBeGreaterThanOrEqual(t0 + 30);
    expect(standIn.issues(REPO)).toHaveLength(0);
  });

  it("acts as a GitHub App: the stand-in verifies the JWT and mints the installation token", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const appStandIn = await startGitHubStandIn({
      appAuth: { appId: "4242", publicKeyPem: publicKey, installationId: 9 },
    });
    try {
      const app = createGitHub({
        apiUrl: appStandIn.url,
        auth: { appId: 4242, privateKey },
        writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
        retryAfterBaseValue: 1,
      });
      const created = await app.createIssue(REPO, input(THREAT));
      await app.updateIssue(REPO, created.number, { state: "closed", stateReason: "completed" });
      expect(appStandIn.counters().byRoute).toMatchObject({
        "GET /repos/{owner}/{repo}/installation": 1,
        "POST /app/installations/{installation_id}/access_tokens": 1,
      });
      expect(await app.lastStateChange(REPO, created.number)).toMatchObject({
        event: "closed",
        viaApp: true,
        bySelf: true,
      });
      appStandIn.person.reopen(REPO, created.number, "alice");
      expect(await app.lastStateChange(REPO, created.number)).toMatchObject({
        event: "reopened",
        viaApp: false,
        bySelf: false,
      });
    } finally {
      await appStandIn.close();
    }
  });
});
