import { describe, expect, it } from "vitest";
import { diagnose, diagnosisHint } from "../../src/cli/check/diagnose.js";

/** Network errors are told apart from credential errors — which of DNS, network, TLS, timeout or credentials failed. */

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe("check: what failed", () => {
  it.each([
    [
      "DNS: ENOTFOUND on the cause",
      new TypeError("fetch failed", { cause: withCode("getaddrinfo ENOTFOUND x.invalid", "ENOTFOUND") }),
      "dns",
    ],
    ["DNS: EAI_AGAIN", withCode("getaddrinfo EAI_AGAIN idp", "EAI_AGAIN"), "dns"],
    [
      "network: ECONNREFUSED",
      new TypeError("fetch failed", { cause: withCode("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED") }),
      "network",
    ],
    ["network: ECONNRESET", withCode("socket hang up", "ECONNRESET"), "network"],
    ["network: EHOSTUNREACH", withCode("connect EHOSTUNREACH 10.0.0.1:443", "EHOSTUNREACH"), "network"],
    [
      "TLS: CERT_HAS_EXPIRED",
      new TypeError("fetch failed", { cause: withCode("certificate has expired", "CERT_HAS_EXPIRED") }),
      "tls",
    ],
    [
      "TLS: UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      withCode("unable to verify the first certificate", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"),
      "tls",
    ],
    [
      "TLS: ERR_TLS_CERT_ALTNAME_INVALID",
      withCode("Hostname/IP does not match", "ERR_TLS_CERT_ALTNAME_INVALID"),
      "tls",
    ],
    ["TLS: self-signed", withCode("self-signed certificate", "DEPTH_ZERO_SELF_SIGNED_CERT"), "tls"],
    [
      "timeout: UND_ERR_CONNECT_TIMEOUT",
      withCode("Connect Timeout Error", "UND_ERR_CONNECT_TIMEOUT"),
      "timeout",
    ],
    [
      "timeout: UND_ERR_HEADERS_TIMEOUT",
      withCode("Headers Timeout Error", "UND_ERR_HEADERS_TIMEOUT"),
      "timeout",
    ],
    [
      "timeout: AbortError",
      Object.assign(new Error("This operation was aborted"), { name: "AbortError" }),
      "timeout",
    ],
    [
      "a code only named in the message (Octokit keeps the message)",
      new Error("GitHub GET https://h/user failed: connect ECONNREFUSED 127.0.0.1:1"),
      "network",
    ],
  ])("%s", (_name, error, expected) => {
    expect(diagnose(error)).toBe(expected);
  });

  it("credentials: an HTTP 401, or the OAuth errors invalid_client / unauthorized_client", () => {
    expect(diagnose(new Error("answered 401"), { status: 401 })).toBe("credentials");
    expect(diagnose(new Error("HTTP 400"), { status: 400, oauthError: "invalid_client" })).toBe(
      "credentials",
    );
    expect(diagnose(new Error("HTTP 400"), { status: 400, oauthError: "unauthorized_client" })).toBe(
      "credentials",
    );
  });

  it("a network failure is never blamed on credentials, even with a 401-looking context", () => {
    const refused = withCode("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED");
    expect(diagnose(refused, { status: null })).toBe("network");
  });

  it("anything else is other", () => {
    expect(diagnose(new Error("answered 500"), { status: 500 })).toBe("other");
  });

  it("hints name the host and what to check", () => {
    expect(diagnosisHint("dns", "https://idp.example.com/oauth/token", "x")).toContain(
      "idp.example.com does not resolve",
    );
    expect(diagnosisHint("tls", "https://api.example.com", "x")).toContain("NODE_EXTRA_CA_CERTS");
    expect(diagnosisHint("credentials", "https://api.example.com", "github.token")).toContain(
      "check github.token",
    );
  });
});
