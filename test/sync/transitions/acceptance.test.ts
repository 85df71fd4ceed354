import { describe, expect, it } from "vitest";
import type { ThreatRecord } from "../../../src/sync/schema.js";
import {
  acceptanceAfterStatus,
  acceptanceDue,
  acceptanceEnd,
  riskAccepted,
  riskExpired,
  stepCommented,
  type Acceptance,
} from "../../../src/sync/features/acceptance/transitions.js";
import { recurred, recurrenceNoted } from "../../../src/sync/features/recurrence/transitions.js";
import { acceptanceOf, featured, recurredFromOf, spelled } from "../feature-fields.js";

const DAY = 86_400_000;
const NOW = Date.parse("2026-03-01T10:00:00Z");
const DEFAULT = 30 * DAY;
const MAX = 90 * DAY;
const endOf = (day: string): number => Date.parse(`${day}T23:59:59.999Z`);

const base: ThreatRecord = {
  status: "accepted",
  severity: 3,
  assetId: null,
  updatedAt: "u",
  issue: { repo: "acme/threats", number: 7, url: "u7", state: "closed", hash: "h" },
};
const acceptance = (step: Acceptance["step"], until = "2026-04-10T23:59:59.999Z"): Acceptance => ({
  until,
  since: "2026-03-01T10:00:00.000Z",
  by: "alice",
  step,
});

describe('the end of a risk acceptance (contract: "Accepted until: YYYY-MM-DD" in a person\'s comment, else default, capped by max)', () => {
  it("a typed date within max is the end of that UTC day", () => {
    expect(acceptanceEnd(["ok", "Accepted until: 2026-04-15"], NOW, DEFAULT, MAX)).toEqual({
      until: endOf("2026-04-15"),
      ignored: null,
    });
  });

  it("no date typed: the default, said nowhere", () => {
    expect(acceptanceEnd(["we accept this"], NOW, DEFAULT, MAX)).toEqual({
      until: NOW + DEFAULT,
      ignored: null,
    });
  });

  it("the newest comment that names a date wins", () => {
    const comments = ["Accepted until: 2026-04-15", "changed my mind. accepted until 2026-05-01."];
    expect(acceptanceEnd(comments, NOW, DEFAULT, MAX).until).toBe(endOf("2026-05-01"));
  });

  it("a date later than max, a past date, an unreadable date, two dates in one comment: the default, with the reason", () => {
    for (const [text, reason] of [
      ["Accepted until: 2027-01-01", /later than acceptance.max/],
      ["Accepted until: 2026-02-01", /in the past/],
      ["Accepted until: 2026-02-30", /not a date/],
      ["Accepted until: soon", /not a date/],
      ["Accepted until: 2026-04-01 and Accepted until: 2026-04-02", /two dates/],
    ] as const) {
      const end = acceptanceEnd([text], NOW, DEFAULT, MAX);
      expect(end.until, text).toBe(NOW + DEFAULT);
      expect(end.ignored, text).toMatch(reason);
    }
  });

  it("the same date twice in one comment is one date", () => {
    const text = "Accepted until: 2026-04-15 (Accepted until: 2026-04-15)";
    expect(acceptanceEnd([text], NOW, DEFAULT, MAX)).toEqual({ until: endOf("2026-04-15"), ignored: null });
  });
});

describe("the steps of an acceptance (pure transitions)", () => {
  it("accepted → announced → warned → expired, each step once; a late earlier step does not undo a later one", () => {
    const accepted = riskAccepted(
      { ...base, status: "unsolved" },
      { status: "accepted", updatedAt: "v" },
      { until: "2026-04-10T23:59:59.999Z", since: "s", by: "alice" },
    );
    expect(spelled(accepted)).toMatchObject({
      status: "accepted",
      issue: { state: "closed" },
      acceptance: { step: "accepted" },
    });
    const announced = stepCommented(accepted, "accept");
    expect(acceptanceOf(announced)?.step).toBe("announced");
    const warned = stepCommented(announced, "warn");
    expect(acceptanceOf(warned)?.step).toBe("warned");
    expect(acceptanceOf(stepCommented(warned, "accept"))?.step).toBe("warned");
    const expired = riskExpired(warned, { status: "unsolved", updatedAt: "w" });
    expect(spelled(expired)).toMatchObject({ status: "unsolved", acceptance: { step: "expired" } });
    expect(acceptanceOf(stepCommented(expired, "warn"))?.step).toBe("expired");
  });

  it("what is due when: the comment at once, the warning warn_before the end, the end at the end", () => {
    const until = Date.parse("2026-04-10T23:59:59.999Z");
    const warn = 7 * DAY;
    expect(acceptanceDue(acceptance("accepted"), NOW, warn)).toBe(true);
    expect(acceptanceDue(acceptance("announced"), until - warn - 1, warn)).toBe(false);
    expect(acceptanceDue(acceptance("announced"), until - warn, warn)).toBe(true);
    expect(acceptanceDue(acceptance("warned"), until - 1, warn)).toBe(false);
    expect(acceptanceDue(acceptance("warned"), until, warn)).toBe(true);
  });

  it("another status before the end ends the acceptance; unsolved after the end is the connector's own expiry", () => {
    const held = featured({ ...base, acceptance: acceptance("warned") });
    expect(acceptanceAfterStatus(held, "accepted", NOW)).toBeNull();
    expect(acceptanceOf(acceptanceAfterStatus(held, "unsolved", NOW))).toBeUndefined();
    expect(acceptanceOf(acceptanceAfterStatus(held, "solved", NOW))).toBeUndefined();
    const late = Date.parse("2026-04-11T00:00:00Z");
    expect(acceptanceOf(acceptanceAfterStatus(held, "unsolved", late))?.step).toBe("expired");
    const expired = featured({ ...base, acceptance: acceptance("expired") });
    expect(acceptanceAfterStatus(expired, "unsolved", late)).toBeNull();
    const reopened = { ...expired, issue: { ...expired.issue!, state: "open" as const } };
    expect(acceptanceOf(acceptanceAfterStatus(reopened, "unsolved", late))).toBeUndefined();
  });

  it("recurrence: the new issue is the threat's, its occurrence counted, the old one kept to be named", () => {
    const next = { repo: "acme/threats", number: 9, url: "u9", state: "open" as const, hash: "h2" };
    const after = recurred(featured({ ...base, acceptance: acceptance("expired") }), next, 2);
    expect(spelled(after)).toMatchObject({
      issue: next,
      occurrence: 2,
      recurredFrom: { repo: "acme/threats", number: 7 },
    });
    expect(acceptanceOf(after)).toBeUndefined();
    expect(recurredFromOf(recurrenceNoted(after, "recur"))).toEqual({
      repo: "acme/threats",
      number: 7,
      noted: true,
    });
  });
});
