import { describe, expect, it } from "vitest";
import { editDistance, suggest } from "../../src/config/suggest.js";

describe("did-you-mean", () => {
  it("measures edits", () => {
    expect(editDistance("githb", "github")).toBe(1);
    expect(editDistance("per_houre", "per_hour")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });

  it("suggests within 2 edits, the closest first", () => {
    expect(suggest("githb", ["platform", "github", "state"])).toBe("github");
    expect(suggest("scheduel", ["schedule", "state"])).toBe("schedule");
    expect(suggest("per_minit", ["per_minute", "per_hour"])).toBe("per_minute");
  });

  it("suggests case, dash and underscore variants however far apart", () => {
    expect(suggest("MinIntervalMs", ["per_minute", "min_interval_ms"])).toBe("min_interval_ms");
  });

  it("suggests nothing when nothing is close, and only 1 edit for short words", () => {
    expect(suggest("interface", ["port", "host"])).toBeUndefined();
    expect(suggest("ab", ["app", "id"])).toBeUndefined();
    expect(suggest("ap", ["app"])).toBe("app");
  });
});
