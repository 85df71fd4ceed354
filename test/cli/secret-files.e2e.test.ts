import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GH_TOKEN, startWorld, type World } from "../e2e/world.js";

/**
 * Contract, "Configuration": every secret key may be given as `<key>_file` (Docker and Kubernetes
 * secrets); both forms of one key is a config error. Through the built CLI, with no secret in the
 * environment at all.
 */

let world: World;
let baseConfig: string;
beforeAll(async () => {
  world = await startWorld({ threats: 4, assets: 2 });
  baseConfig = await readFile(world.configPath, "utf8");
  delete world.env["PLATFORM_CLIENT_SECRET"];
  delete world.env["GITHUB_TOKEN"];
});
afterAll(async () => {
  await world.close();
});

async function secretFiles(): Promise<{ platform: string; github: string }> {
  const platform = join(world.dir, "platform-client-secret");
  const github = join(world.dir, "github-token");
  // As `kubectl create secret` or an editor leaves them: with a trailing newline.
  await writeFile(platform, "threatbridge-secret\n", { mode: 0o600 });
  await writeFile(github, `${GH_TOKEN}\n`, { mode: 0o600 });
  return { platform, github };
}

describe("secrets from files through the CLI", () => {
  it("client_secret_file and token_file: sync runs with no secret in the environment", async () => {
    const files = await secretFiles();
    await writeFile(
      world.configPath,
      baseConfig
        .replace("client_secret: ${PLATFORM_CLIENT_SECRET}", `client_secret_file: ${files.platform}`)
        .replace("token: ${GITHUB_TOKEN}", `token_file: ${files.github}`),
    );
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code, r.stderr).toBe(0);
    expect(world.gh.issues("acme/security-threats").length).toBeGreaterThan(0);
    expect(r.stdout + r.stderr).not.toContain(GH_TOKEN);
  });

  it("both forms of one key: exit 2 with file:line:key", async () => {
    const files = await secretFiles();
    world.env["GITHUB_TOKEN"] = GH_TOKEN;
    try {
      await writeFile(
        world.configPath,
        baseConfig
          .replace("client_secret: ${PLATFORM_CLIENT_SECRET}", `client_secret_file: ${files.platform}`)
          .replace("token: ${GITHUB_TOKEN}", `token: \${GITHUB_TOKEN}\n  token_file: ${files.github}`),
      );
      const r = await world.cli(["config", "validate", "-c", world.configPath]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `${world.configPath}:9: github.token_file: give either github.token or github.token_file, not both`,
      );
    } finally {
      delete world.env["GITHUB_TOKEN"];
    }
  });

  it("an unreadable file: exit 2 naming the key and the path, before any network call", async () => {
    const missing = join(world.dir, "no-such-secret");
    const files = await secretFiles();
    await writeFile(
      world.configPath,
      baseConfig
        .replace("client_secret: ${PLATFORM_CLIENT_SECRET}", `client_secret_file: ${missing}`)
        .replace("token: ${GITHUB_TOKEN}", `token_file: ${files.github}`),
    );
    const before = world.gh.counters().requests;
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${world.configPath}:5: platform.client_secret_file: cannot read the secret file ${missing} (no such file)`,
    );
    expect(world.gh.counters().requests).toBe(before);
  });
});
