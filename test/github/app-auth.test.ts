import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, startHarness, type Harness } from "./harness.js";

const APP = { id: 42, slug: "tb-app", installationId: 7, installationToken: "ghs_installation_secret" };
const { privateKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
let h: Harness;

afterEach(async () => {
  expect(h.fake.unexpected).toEqual([]);
  await h.close();
});

describe("GitHub gateway: GitHub App authentication", () => {
  it("discovers the installation of the repository, acts with its token, and knows itself as <slug>[bot]", async () => {
    h = await startHarness({ auth: { appId: APP.id, privateKey } }, { app: APP, tokens: [] });
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    expect(await h.gh.getIssue(REPO, 1)).toMatchObject({ number: 1 });
    expect(await h.gh.listChangedIssues(REPO, null)).toMatchObject({ issues: [{ number: 1 }] });
    expect(h.fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /repos/${REPO}/installation`,
      `POST /app/installations/${APP.installationId}/access_tokens`,
      `GET /repos/${REPO}/issues/1`,
      `GET /repos/${REPO}/issues`,
    ]);
    expect(h.fake.requests[0]?.headers.authorization).toMatch(/^bearer ey/);
    expect(h.fake.requests[2]?.headers.authorization).toBe(`token ${APP.installationToken}`);
    expect(h.fake.requests.every((r) => r.headers["x-github-api-version"] === "2022-11-28")).toBe(true);
    expect(await h.gh.whoAmI()).toBe("tb-app[bot]");
  });

  it("uses a configured installation id without asking for it", async () => {
    h = await startHarness(
      { auth: { appId: APP.id, privateKey, installationId: APP.installationId } },
      { app: APP, tokens: [] },
    );
    h.fake.addIssue(REPO);
    await h.gh.getIssue(REPO, 1);
    expect(h.fake.requests.map((r) => r.path)).toEqual([
      `/app/installations/${APP.installationId}/access_tokens`,
      `/repos/${REPO}/issues/1`,
    ]);
  });

  it("lastStateChange counts a close through the connector's own App as bySelf", async () => {
    h = await startHarness({ auth: { appId: APP.id, privateKey } }, { app: APP, tokens: [] });
    h.fake.addIssue(REPO);
    h.fake.addEvent(REPO, 1, {
      event: "closed",
      actor: { login: "tb-app[bot]" },
      performed_via_github_app: { id: APP.id, slug: APP.slug },
      state_reason: "completed",
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toEqual({
      event: "closed",
      login: "tb-app[bot]",
      viaApp: true,
      bySelf: true,
      stateReason: "completed",
    });
    h.fake.addEvent(REPO, 1, {
      event: "reopened",
      actor: { login: "bob" },
      performed_via_github_app: null,
      state_reason: null,
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toMatchObject({ login: "bob", viaApp: false, bySelf: false });
  });

  it("neither the private key nor the installation token reaches the logs or errors", async () => {
    h = await startHarness({ auth: { appId: APP.id, privateKey } }, { app: APP, tokens: [] });
    const error = await h.gh.getIssue(REPO, 99).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeNull();
    h.fake.faultNext("GET", /issues\/1$/, {
      kind: "answer",
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const denied = await h.gh.getIssue(REPO, 1).catch((e: unknown) => e);
    expect(denied).toMatchObject({ code: "unauthorized" });
    const text = `${h.logs.join("")} ${JSON.stringify(denied)} ${denied instanceof Error ? denied.message : ""}`;
    expect(text).not.toContain(APP.installationToken);
    expect(text).not.toContain("PRIVATE KEY");
  });
});
