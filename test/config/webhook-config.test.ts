import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactConfig } from "../../src/config/index.js";
import { ENV, errorOf, minimalPlus, parse } from "./helpers.js";

/**
 * Contract, "GitHub webhooks (optional)" and "Configuration": `github.webhook.path` switches the
 * webhook on and needs its `secret` (or `secret_file`, like every secret key); `previous_secrets`
 * are still accepted during a rotation. The minimal file's github block ends on line 8.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "threatbridge-webhook-config-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WEBHOOK_ENV = { ...ENV, GITHUB_WEBHOOK_SECRET: "whsec-from-env-value" };

describe("github.webhook (contract: GitHub webhooks)", () => {
  it("off when left out", () => {
    expect(parse(minimalPlus()).config.github.webhook).toBeUndefined();
  });

  it("path and secret from the environment; previous secrets default to none; the secrets are redacted", () => {
    const { config } = parse(
      minimalPlus("  webhook:", "    path: /github/webhook", "    secret: ${GITHUB_WEBHOOK_SECRET}"),
      WEBHOOK_ENV,
    );
    expect(config.github.webhook).toEqual({
      path: "/github/webhook",
      secret: "whsec-from-env-value",
      previous_secrets: [],
    });
    expect(JSON.stringify(redactConfig(config))).not.toContain("whsec-from-env-value");
  });

  it("secret_file and previous_secrets_file (one secret a line) are read like every _file key", async () => {
    const current = join(dir, "current");
    const previous = join(dir, "previous");
    await writeFile(current, "whsec-current-from-file\n");
    await writeFile(previous, "whsec-old-one\n\nwhsec-old-two\n");
    const { config } = parse(
      minimalPlus(
        "  webhook:",
        "    path: /github/webhook",
        `    secret_file: ${current}`,
        `    previous_secrets_file: ${previous}`,
      ),
    );
    expect(config.github.webhook?.secret).toBe("whsec-current-from-file");
    expect(config.github.webhook?.previous_secrets).toEqual(["whsec-old-one", "whsec-old-two"]);
    const redacted = JSON.stringify(redactConfig(config));
    expect(redacted).not.toContain("whsec-");
  });

  it("both forms of the secret at once is a config error with file, line and key", async () => {
    const current = join(dir, "current");
    await writeFile(current, "whsec-current-from-file\n");
    const error = errorOf(
      minimalPlus(
        "  webhook:", // 9
        "    path: /github/webhook", // 10
        "    secret: ${GITHUB_WEBHOOK_SECRET}", // 11
        `    secret_file: ${current}`, // 12
      ),
      WEBHOOK_ENV,
    );
    expect(error.message).toBe(
      "test.yaml:12: github.webhook.secret_file: give either github.webhook.secret or github.webhook.secret_file, not both",
    );
  });

  it("a path without a secret is a config error naming the key; a secret never shows in a message", () => {
    const error = errorOf(minimalPlus("  webhook:", "    path: /github/webhook"));
    expect(error.message).toContain("github.webhook.secret");
    expect(error.message).toContain("set github.webhook.secret (or secret_file)");
    const bad = errorOf(
      minimalPlus("  webhook:", "    path: /healthz", "    secret: ${GITHUB_WEBHOOK_SECRET}"),
      WEBHOOK_ENV,
    );
    expect(bad.message).toContain("test.yaml:10: github.webhook.path: must not be /healthz");
    expect(bad.message).not.toContain("whsec-from-env-value");
  });
});
