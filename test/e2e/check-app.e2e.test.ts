import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";

/**
 * `threatbridge check` with GitHub App credentials whose PEM comes from a file (contract:
 * `github.app.private_key_file`), through the built CLI: the App's identity and the repository,
 * read through the installation.
 */

const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});

let world: World;
beforeAll(async () => {
  world = await startWorld({ threats: 4, assets: 2 }, "", {
    standIn: {
      tokens: [],
      appAuth: { appId: "4242", publicKeyPem: publicKey, installationId: 77 },
      botLogin: "tb-app[bot]",
      repositories: { [REPO]: {} },
    },
    githubAuthYaml: 'app: { app_id: 4242, private_key_file: "${PEM_FILE}" }',
  });
  const pem = join(world.dir, "app.pem");
  await writeFile(pem, privateKey, { mode: 0o600 });
  world.env["PEM_FILE"] = pem;
});
afterAll(async () => {
  await world.close();
});

describe("threatbridge check with a GitHub App (end to end)", () => {
  it("all pass, acting as the App's bot; the PEM never shows", async () => {
    const r = await world.cli(["check", "-c", world.configPath]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("github credentials: acting as tb-app[bot]");
    expect(r.stdout).toMatch(new RegExp(`^ok {3}github repository ${REPO} \\(github.repository\\)`, "m"));
    expect(r.stdout + r.stderr).not.toContain("PRIVATE KEY");
  });
});
