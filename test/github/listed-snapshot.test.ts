import { describe, expect, it } from "vitest";
import { GitHubIssue, toListedSnapshot, toSnapshot } from "../../src/github/schemas.js";

const issue = GitHubIssue.parse({
  number: 7,
  title: "Open admin panel",
  state: "closed",
  state_reason: "completed",
  html_url: "https://github.com/acme/sec/issues/7",
  updated_at: "2026-11-23T07:00:00Z",
  created_at: "2026-11-22T07:00:00Z",
  labels: [{ name: "threatbridge" }],
  assignees: [{ login: "alice" }],
  body: [
    "A long description of the threat…".repeat(200),
    "<!-- threatbridge:threat=00000000-0000-4000-8000-000000000007 -->",
    "more text a person added",
    "<!-- threatbridge:rev=0123abcd -->",
  ].join("\n"),
});

describe("issues of the change list keep only what the intake reads (bounded memory)", () => {
  it("keeps the marker, the revision line, state, labels and assignees (the note names them); drops the rest of the body", () => {
    const full = toSnapshot(issue, "acme/sec");
    const listed = toListedSnapshot(issue, "acme/sec");
    expect(listed.threatId).toBe(full.threatId);
    expect(listed.body).toBe(
      "<!-- threatbridge:threat=00000000-0000-4000-8000-000000000007 -->\n<!-- threatbridge:rev=0123abcd -->",
    );
    expect(listed.body.length).toBeLessThan(full.body.length / 50);
    expect(listed.assignees).toEqual(["alice"]);
    const { body: _b, ...rest } = listed;
    const { body: _fb, ...fullRest } = full;
    expect(rest).toEqual(fullRest);
  });
});
