import { describe, expect, it } from "vitest";
import {
  isSettableStatus,
  isThreatStatus,
  SETTABLE_STATUSES,
  THREAT_STATUSES,
} from "../../src/shared/index.js";

describe("threat status vocabulary (spec, States and transitions)", () => {
  it("every settable status is a threat status, and pending is the only one a caller cannot set", () => {
    for (const status of SETTABLE_STATUSES) expect(isThreatStatus(status)).toBe(true);
    expect(THREAT_STATUSES.filter((status) => !isSettableStatus(status))).toEqual(["pending"]);
  });

  it("an unknown word is neither a status nor settable, so later spec additions are not mistaken for known ones", () => {
    expect(isThreatStatus("archived")).toBe(false);
    expect(isSettableStatus("archived")).toBe(false);
  });
});
