import { describe, expect, it } from "vitest";
import { redactConfig } from "../../src/config/index.js";
import { ENV, minimalPlus, parse } from "./helpers.js";

describe("redactConfig (for `status` and logs)", () => {
  it("replaces client_secret, token and private_key, keeps everything else, leaves the config as it was", () => {
    const { config } = parse(minimalPlus());
    const redacted = redactConfig(config);
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(ENV.PLATFORM_CLIENT_SECRET);
    expect(text).not.toContain(ENV.GITHUB_TOKEN);
    expect(redacted).toEqual({
      ...config,
      platform: { ...config.platform, client_secret: "[redacted]" },
      github: { ...config.github, token: "[redacted]" },
    });
    expect(config.platform.client_secret).toBe(ENV.PLATFORM_CLIENT_SECRET);
  });

  it("redacts a GitHub App's private key but not its ids", () => {
    const text = minimalPlus("  app: { app_id: 7, installation_id: 9, private_key: PEM-s3cr3t }").replace(
      "  token: ${GITHUB_TOKEN}\n",
      "",
    );
    const redacted = redactConfig(parse(text).config);
    expect(JSON.stringify(redacted)).not.toContain("s3cr3t");
    expect(redacted).toMatchObject({
      github: { app: { app_id: 7, installation_id: 9, private_key: "[redacted]" } },
    });
  });
});
