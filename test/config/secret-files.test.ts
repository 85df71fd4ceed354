import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, redactConfig } from "../../src/config/index.js";
import { ENV, errorOf, parse, yamlOf } from "./helpers.js";

/**
 * Contract, "Configuration": every secret key may be given as a file, `<key>_file`, whose content
 * without its trailing newline is the value; giving both forms of one key is a config error.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "threatbridge-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\nline-two\n-----END RSA PRIVATE KEY-----";

async function secret(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content, { mode: 0o600 });
  return path;
}

function withFiles(platformSecret: string, github: string[]): string {
  return yamlOf([
    "platform:", // 1
    "  base_url: https://api.example.com", // 2
    "  token_url: https://idp.example.com/oauth/token", // 3
    "  client_id: ${PLATFORM_CLIENT_ID}", // 4
    platformSecret, // 5
    "github:", // 6
    "  repository: acme/security-threats", // 7
    ...github, // 8…
  ]);
}

describe("secrets from files (contract: `_file` keys)", () => {
  it("client_secret_file and token_file: the content without its trailing newline is the value", async () => {
    const platform = await secret("platform", "s3cr3t-from-file\n");
    const token = await secret("token", "ghp_fromfile\r\n");
    const { config } = parse(withFiles(`  client_secret_file: ${platform}`, [`  token_file: ${token}`]), {
      PLATFORM_CLIENT_ID: "id",
    });
    expect(config.platform.client_secret).toBe("s3cr3t-from-file");
    expect(config.github.token).toBe("ghp_fromfile");
    expect(JSON.stringify(redactConfig(config))).not.toContain("s3cr3t");
  });

  it("app.private_key_file: a multi-line PEM keeps its inner newlines, loses only the trailing one", async () => {
    const pem = await secret("app.pem", `${PEM}\n`);
    const { config } = parse(
      withFiles("  client_secret: ${PLATFORM_CLIENT_SECRET}", [
        "  app:",
        "    app_id: 42",
        `    private_key_file: ${pem}`,
      ]),
    );
    expect(config.github.app?.private_key).toBe(PEM);
  });

  it("a _file path may come from the environment (interpolated first)", async () => {
    await secret("token", "ghp_x");
    const { config } = parse(
      withFiles("  client_secret: ${PLATFORM_CLIENT_SECRET}", ["  token_file: ${SECRETS}/token"]),
      { ...ENV, SECRETS: dir },
    );
    expect(config.github.token).toBe("ghp_x");
  });

  it("giving both forms of one key is a config error on the _file key's line", async () => {
    const token = await secret("token", "ghp_fromfile");
    const error = errorOf(
      withFiles("  client_secret: ${PLATFORM_CLIENT_SECRET}", [
        "  token: ${GITHUB_TOKEN}",
        `  token_file: ${token}`,
      ]),
    );
    expect(error.message).toBe(
      "test.yaml:9: github.token_file: give either github.token or github.token_file, not both",
    );
  });

  it("an unreadable file names the key and the path, never any content, and exits 2 before any network call", async () => {
    const missing = join(dir, "nope");
    const error = errorOf(withFiles(`  client_secret_file: ${missing}`, ["  token_file: " + dir]), {
      PLATFORM_CLIENT_ID: "id",
    });
    expect(error.message).toBe(
      [
        `test.yaml:5: platform.client_secret_file: cannot read the secret file ${missing} (no such file)`,
        `test.yaml:8: github.token_file: cannot read the secret file ${dir} (it is a directory)`,
      ].join("\n"),
    );
  });

  it("an empty secret file is an error naming the key; its content never appears in messages", async () => {
    const empty = await secret("empty", "\n");
    const error = errorOf(withFiles(`  client_secret_file: ${empty}`, ["  token: ${GITHUB_TOKEN}"]));
    expect(error.message).toBe(`test.yaml:5: platform.client_secret_file: the secret file ${empty} is empty`);
  });

  it("loadConfig reads the files too (through the CLI's path)", async () => {
    const platform = await secret("platform", "p-s3cr3t\n");
    const token = await secret("token", "ghp_t\n");
    const path = join(dir, "threatbridge.yaml");
    await writeFile(path, withFiles(`  client_secret_file: ${platform}`, [`  token_file: ${token}`]));
    const { config } = await loadConfig(path, { PLATFORM_CLIENT_ID: "id" });
    expect(config.platform.client_secret).toBe("p-s3cr3t");
  });

  it("a _file key where no secret lives is an unknown key on its own line (with a did-you-mean)", () => {
    const error = errorOf(
      withFiles("  client_secret: ${PLATFORM_CLIENT_SECRET}", [
        "  token: ${GITHUB_TOKEN}",
        "  client_secret_file: /x",
      ]),
    );
    expect(error.problems).toEqual([
      expect.objectContaining({
        path: "github.client_secret_file",
        line: 9,
        message: expect.stringContaining("unknown key"),
      }),
    ]);
  });
});
