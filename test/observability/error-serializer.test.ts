import { Writable } from "node:stream";
import { RequestError } from "@octokit/request-error";
import { describe, expect, it } from "vitest";
import { toGitHubError } from "../../src/github/errors.js";
import { createLogger } from "../../src/observability/index.js";
import { PlatformProblem } from "../../src/platform/errors.js";

/**
 * Contract, "Logs": an error is pino's `err` object with `type` and `message`; style.md: "Never log
 * a token, a secret or an `Authorization` header; strip HTTP error objects to method, URL, status and
 * problem body". No secret registry here: the serializer itself must keep the exchange out.
 */

const TOKEN = "ghp_serializerTestToken123456";

function logOne(fields: object): Record<string, unknown> {
  let text = "";
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  createLogger({ destination }).warn(fields, "work failed; it is retried later");
  const parsed: unknown = JSON.parse(text.trim());
  if (typeof parsed !== "object" || parsed === null) throw new Error(text);
  return Object.fromEntries(Object.entries(parsed));
}

function octokitRefusal(): RequestError {
  return new RequestError("Unable to create comment because issue is locked.", 403, {
    request: {
      method: "POST",
      url: "https://api.github.com/repos/acme/x/issues/1/comments",
      headers: { authorization: `token ${TOKEN}`, "user-agent": "threatbridge" },
      body: { body: "a comment" },
    },
    response: {
      status: 403,
      url: "https://api.github.com/repos/acme/x/issues/1/comments",
      headers: { "x-github-request-id": "AB:CD", "set-cookie": `session=${TOKEN}` },
      data: { message: "Unable to create comment because issue is locked." },
    },
  });
}

describe("the err of a log line", () => {
  it("a GitHub refusal: type, message and the stripped request, never the exchange's headers", () => {
    const error = toGitHubError(octokitRefusal(), {
      method: "POST",
      url: "https://api.github.com/repos/acme/x/issues/1/comments",
      createRequest: false,
      now: 0,
    });
    const line = logOne({ threat_id: "t-1", err: error });
    expect(line["err"]).toMatchObject({
      type: "GitHubError",
      message: expect.stringContaining("locked"),
      status: 403,
      github_request: { method: "POST", status: 403, documentation_url: null },
    });
    const text = JSON.stringify(line);
    expect(text).not.toContain(TOKEN);
    expect(text.toLowerCase()).not.toContain("authorization");
    expect(text).not.toContain("headers");
  });

  it("Octokit's own error logged as is keeps its request and response out", () => {
    const text = JSON.stringify(logOne({ err: octokitRefusal() }));
    expect(JSON.parse(text)).toMatchObject({ err: { type: "RequestError", status: 403 } });
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("headers");
  });

  it("any error's own fields that may hold an exchange are left out", () => {
    const error = Object.assign(new Error("upstream failed"), {
      code: "ECONNRESET",
      headers: { authorization: `Bearer ${TOKEN}` },
      config: { auth: TOKEN },
    });
    const line = logOne({ err: error });
    expect(line["err"]).toMatchObject({ type: "Error", message: "upstream failed", code: "ECONNRESET" });
    expect(JSON.stringify(line)).not.toContain(TOKEN);
  });

  it("a platform problem keeps its log form, in snake_case, under pino's type", () => {
    const problem = new PlatformProblem({
      method: "GET",
      path: "/v1/threats",
      status: 400,
      requestId: "req-1",
      problem: { type: "https://api.example.com/errors/request/invalid-cursor", title: "Invalid cursor" },
    });
    expect(logOne({ err: problem })["err"]).toMatchObject({
      type: "PlatformProblem",
      problem_type: "request/invalid-cursor",
      request_id: "req-1",
      status: 400,
      path: "/v1/threats",
    });
  });

  it("a failure known only by its text is still an object with type and message", () => {
    expect(logOne({ err: "cycle failed" })["err"]).toEqual({ type: "Error", message: "cycle failed" });
  });
});
