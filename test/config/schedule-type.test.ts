import { describe, expect, it } from "vitest";
import { errorOf, minimalPlus } from "./helpers.js";

describe("schedule", () => {
  it("schedule: 15 (not a string) says what a schedule is: a cron expression in quotes, with an example", () => {
    const error = errorOf(minimalPlus("schedule: 15"));
    expect(error.message).toBe(
      'test.yaml:9: schedule: expected a cron expression, quoted, such as "*/15 * * * * *", got 15',
    );
  });
});
