import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";

/** GitHub App credentials from the YAML, end to end: installation token, writes via the App. */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;
const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("threatbridge sync with GitHub App auth (end to end)", () => {
  it("acts as the App's installation; a person's close is still told from the App's own", async () => {
    world = await startWorld({}, "", {
      standIn: {
        tokens: [],
        appAuth: { appId: "4242", publicKeyPem: publicKey, installationId: 77 },
        botLogin: "tb-app[bot]",
      },
      githubAuthYaml: 'app: { app_id: 4242, private_key: "${GITHUB_APP_PRIVATE_KEY}" }',
      env: { GITHUB_APP_PRIVATE_KEY: privateKey },
    });
    const first = await world.cli(["sync", "-c", world.configPath]);
    expect(first.stderr).not.toContain("PRIVATE KEY");
    expect(first.code).toBe(0);
    const issues = world.gh.issues(REPO);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.user === "tb-app[bot]")).toBe(true);
    const issue = issues[0];
    if (!issue) throw new Error("no issue");
    world.gh.person.close(REPO, issue.number, { reason: "not_planned", login: "bob" });
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const id = MARKER.exec(issue.body ?? "")?.[1] ?? "";
    expect(world.sim.sim.getThreat(id)?.status_note).toContain("bob");
  });
});
