import { generateKeyPairSync } from "node:crypto";
import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { FULL, REPO, statusOf, useStandIn } from "./helpers.js";
import { validatorFor } from "./schema-validator.js";

const quietLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function keys(): { privateKey: string; publicKeyPem: string } {
  const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKey: pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

describe("GitHub stand-in: GitHub App mode", () => {
  const start = useStandIn();
  const { privateKey, publicKeyPem } = keys();

  it("an app JWT mints an installation token; its writes carry performed_via_github_app", async () => {
    const s = await start({ appAuth: { appId: "4242", publicKeyPem, installationId: 77 } });
    const gh = new Octokit({
      authStrategy: createAppAuth,
      auth: { appId: 4242, privateKey, installationId: 77 },
      baseUrl: s.url,
      log: quietLog,
    });
    const created = await gh.rest.issues.create({ ...REPO, title: "via app" });
    expect(created.data.user?.login).toBe("threatbridge[bot]");
    await gh.rest.issues.update({ ...REPO, issue_number: 1, state: "closed" });
    const events = await gh.rest.issues.listEvents({ ...REPO, issue_number: 1 });
    expect(events.data[0]).toMatchObject({
      event: "closed",
      actor: { login: "threatbridge[bot]", type: "Bot" },
      performed_via_github_app: { slug: "threatbridge", id: 4242 },
    });
    s.person.reopen(FULL, 1, "alice");
    const after = await gh.rest.issues.listEvents({ ...REPO, issue_number: 1 });
    expect(after.data[1]).toMatchObject({
      event: "reopened",
      actor: { login: "alice" },
      performed_via_github_app: null,
    });
    expect(s.counters().byRoute["POST /app/installations/{installation_id}/access_tokens"]).toBe(1);
  });

  it("finds the installation of a repository with the app JWT", async () => {
    const s = await start({ appAuth: { appId: "4242", publicKeyPem, installationId: 77 } });
    const auth = createAppAuth({ appId: 4242, privateKey });
    const { token } = await auth({ type: "app" });
    const res = await fetch(`${s.url}/repos/acme/security/installation`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 77, app_id: 4242 });
    const minted = await fetch(`${s.url}/app/installations/77/access_tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(minted.status).toBe(201);
    expect(validatorFor()("installation-token", await minted.json())).toEqual([]);
    // An app JWT is not a token for repository content.
    const issues = await fetch(`${s.url}/repos/acme/security/issues`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(issues.status).toBe(401);
  });

  it("refuses a JWT signed by another key or for another app", async () => {
    const s = await start({ appAuth: { appId: "4242", publicKeyPem, installationId: 77 } });
    const other = keys();
    for (const [appId, key] of [
      [4242, other.privateKey],
      [9999, privateKey],
    ] as const) {
      const gh = new Octokit({
        authStrategy: createAppAuth,
        auth: { appId, privateKey: key, installationId: 77 },
        baseUrl: s.url,
        log: quietLog,
      });
      expect(await statusOf(gh.rest.issues.listForRepo(REPO))).toBe(401);
    }
  });
});
