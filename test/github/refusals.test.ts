import { describe, expect, it } from "vitest";
import type { GitHubError } from "../../src/github/errors.js";
import { isGone, isPermanentRefusal, toGitHubError } from "../../src/github/errors.js";

/** What GitHub answered, as Octokit reports it (a RequestError with a response). */
function answered(status: number, message: string, headers: Record<string, string> = {}): GitHubError {
  return toGitHubError(
    { status, message, response: { headers, data: { message } } },
    {
      method: "POST",
      url: "https://api.github.com/repos/a/b/issues/1/comments",
      createRequest: false,
      now: 0,
    },
  );
}

describe("permanent refusals are told from transient errors", () => {
  it("a locked conversation, an archived repository, 404, 410 and 422 are permanent", () => {
    expect(isPermanentRefusal(answered(403, "Unable to create comment because issue is locked."))).toBe(true);
    expect(isPermanentRefusal(answered(403, "Repository was archived so is read-only."))).toBe(true);
    expect(isPermanentRefusal(answered(404, "Not Found"))).toBe(true);
    expect(isPermanentRefusal(answered(410, "This issue was deleted"))).toBe(true);
    expect(isPermanentRefusal(answered(422, "Validation Failed"))).toBe(true);
  });

  it("rate limits, server errors, bad credentials and a missing permission are transient", () => {
    expect(
      isPermanentRefusal(answered(403, "You have exceeded a secondary rate limit", { "retry-after": "60" })),
    ).toBe(false);
    expect(isPermanentRefusal(answered(429, "Too many requests"))).toBe(false);
    expect(isPermanentRefusal(answered(502, "Bad Gateway"))).toBe(false);
    expect(isPermanentRefusal(answered(401, "Bad credentials"))).toBe(false);
    expect(isPermanentRefusal(answered(403, "Resource not accessible by integration"))).toBe(false);
    expect(isPermanentRefusal(new Error("socket hang up"))).toBe(false);
  });

  it("404 and 410 mean the issue is gone", () => {
    expect(isGone(answered(410, "This issue was deleted"))).toBe(true);
    expect(isGone(answered(404, "Not Found"))).toBe(true);
    expect(isGone(answered(422, "Validation Failed"))).toBe(false);
  });
});
