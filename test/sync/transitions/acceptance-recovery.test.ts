import { describe, expect, it } from "vitest";
import type { ThreatRecord } from "../../../src/sync/schema.js";
import { acceptanceFromComments } from "../../../src/sync/features/acceptance/comments.js";
import { acceptedComment, warnComment } from "../../../src/sync/features/acceptance/comments.js";
import { acceptanceRecovered } from "../../../src/sync/features/acceptance/transitions.js";
import { spelled } from "../feature-fields.js";

/**
 * A lost state file loses no acceptance (contract, "Risk acceptance"; README, a lost state costs
 * no lost verdict): the connector's own comments on the issue (they carry a comment key) say its
 * end and whether it was warned.
 */

const END = Date.parse("2026-04-10T23:59:59.999Z");
const key = (id: string): string => `\n<!-- threatbridge:comment=${id} -->`;
const own = (body: string): boolean => body.includes("<!-- threatbridge:comment=");

describe("reading an acceptance back from the issue's comments", () => {
  it("the connector's announcement gives the end; its warning for that end makes it warned", () => {
    const announced = acceptedComment(END) + key("i1");
    expect(acceptanceFromComments(["We take it. Accepted until: 2026-04-10", announced], own)).toEqual({
      until: "2026-04-10",
      warned: false,
    });
    expect(acceptanceFromComments([announced, "ok", warnComment(END) + key("i2")], own)).toEqual({
      until: "2026-04-10",
      warned: true,
    });
  });

  it("a person's quote of the announcement (no key) is not taken; the newest announcement wins", () => {
    expect(acceptanceFromComments([`> ${acceptedComment(END)}`, acceptedComment(END)], own)).toBeNull();
    const earlier = acceptedComment(Date.parse("2026-02-01T23:59:59.999Z")) + key("i0");
    const later = acceptedComment(END) + key("i3");
    expect(acceptanceFromComments([earlier, later], own)?.until).toBe("2026-04-10");
    // A warning of an earlier acceptance does not make the later one warned.
    const oldWarning = warnComment(Date.parse("2026-02-01T23:59:59.999Z")) + key("i4");
    expect(acceptanceFromComments([earlier, later, oldWarning], own)?.warned).toBe(false);
  });
});

describe("the record after the search", () => {
  const base: ThreatRecord = {
    status: "accepted",
    severity: 2,
    assetId: null,
    updatedAt: "v1",
    issue: { repo: "acme/sec", number: 7, url: "u", state: "closed", hash: "h" },
  };

  it("found: the acceptance at its end of day, announced or warned, and the version marked as sought", () => {
    expect(
      spelled(
        acceptanceRecovered(base, "v1", { until: "2026-04-10", warned: true }, "2026-03-01T00:00:00.000Z"),
      ),
    ).toEqual({
      ...base,
      acceptanceSought: "v1",
      acceptance: {
        until: "2026-04-10T23:59:59.999Z",
        since: "2026-03-01T00:00:00.000Z",
        by: "(recovered from the issue's comments)",
        step: "warned",
      },
    });
  });

  it("not found: only the version is marked, so the comments are not read again for it", () => {
    expect(spelled(acceptanceRecovered(base, "v1", null, "2026-03-01T00:00:00.000Z"))).toEqual({
      ...base,
      acceptanceSought: "v1",
    });
  });
});
