import { describe, expect, it } from "vitest";
import { createLogger, createSecretRegistry } from "../../src/observability/index.js";

/** No credential the process holds reaches a log line, whoever echoes it. */

function capture(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line) => void lines.push(line) };
}

const PEM = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
-----END RSA PRIVATE KEY-----`;

describe("SecretRegistry", () => {
  it("scrubs registered values in raw, form-encoded and JSON-escaped form", () => {
    const secrets = createSecretRegistry(['s3cret/with+plus"quote']);
    expect(secrets.scrub('raw s3cret/with+plus"quote')).toBe("raw [redacted]");
    expect(secrets.scrub("form s3cret%2Fwith%2Bplus%22quote")).toBe("form [redacted]");
    expect(secrets.scrub(JSON.stringify({ e: 's3cret/with+plus"quote' }))).toBe('{"e":"[redacted]"}');
  });

  it("tokens registered later are scrubbed from then on", () => {
    const secrets = createSecretRegistry();
    expect(secrets.scrub("access tok-123456789")).toBe("access tok-123456789");
    secrets.add("tok-123456789");
    expect(secrets.scrub("access tok-123456789")).toBe("access [redacted]");
  });

  it("scrubs credential-looking text nobody registered: Authorization headers, Bearer/Basic values, GitHub tokens, PEM keys", () => {
    const secrets = createSecretRegistry();
    const text = [
      "Authorization: Bearer abcdefghijk",
      "authorization=Basic dXNlcjpwYXNzd29yZA==",
      "sent bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
      "ghp_abcdefghijklmnop1234 ghs_abcdefghijkl5678 github_pat_11ABCDEFG0123456789",
      PEM,
    ].join("\n");
    const out = secrets.scrub(text);
    for (const leaked of [
      "abcdefghijk",
      "dXNlcjpwYXNzd29yZA",
      "eyJhbGciOiJIUzI1NiJ9",
      "ghp_",
      "ghs_",
      "github_pat_",
      "MIIEow",
    ])
      expect(out).not.toContain(leaked);
    expect(out).toContain("Authorization: [redacted]");
  });

  it("a PEM key registered is scrubbed also line by line (a server quoting part of it)", () => {
    const secrets = createSecretRegistry([PEM]);
    expect(
      secrets.scrub("key line VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"),
    ).not.toContain("VTLw7");
  });

  it("leaves ordinary text alone", () => {
    const secrets = createSecretRegistry(["hunter2-secret"]);
    const text = "token request POST /oauth/token failed: HTTP 401 invalid_client; check client_secret_basic";
    expect(secrets.scrub(text)).toBe(text);
  });
});

describe("logger with a SecretRegistry", () => {
  it("no registered secret or bearer token reaches a JSON line, in the message or any field, and lines stay JSON", () => {
    const dest = capture();
    const secrets = createSecretRegistry(["platform-secret-value"]);
    const logger = createLogger({ destination: dest, secrets });
    secrets.add("issued-token-abcdef");
    logger.error(
      {
        err: new Error("server said: Authorization: Bearer issued-token-abcdef"),
        detail: "platform-secret-value",
      },
      "echo issued-token-abcdef and ghp_abcdefghijklmnop1234",
    );
    expect(dest.lines).toHaveLength(1);
    const line = dest.lines[0] ?? "";
    expect(line).not.toContain("issued-token-abcdef");
    expect(line).not.toContain("platform-secret-value");
    expect(line).not.toContain("ghp_abcdefghijklmnop1234");
    expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe("SecretRegistry in a long run", () => {
  it("keeps the config's secrets and the newest tokens however many tokens were issued", () => {
    const secrets = createSecretRegistry(["config-secret-value"]);
    for (let i = 0; i < 2_000; i++) secrets.add(`access-token-${i.toString().padStart(6, "0")}`);
    expect(secrets.size()).toBeLessThanOrEqual(512);
    expect(secrets.scrub("config-secret-value")).toBe("[redacted]");
    expect(secrets.scrub("access-token-001999")).toBe("[redacted]");
  });
});
