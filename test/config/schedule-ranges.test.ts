import { describe, expect, it } from "vitest";
import { errorOf, minimalPlus, parse } from "./helpers.js";

/** Contract, "Configuration": errors name the file, line and key; a cron field out of range is one. */
describe("schedule: cron fields out of range are config errors on their line", () => {
  it.each([
    ["*/61 * * * *", 'minute field "*/61": step 61 is out of range (1-59)'],
    ["61 * * * *", 'minute field "61": 61 is out of range (0-59)'],
    ["*/60 * * * *", 'minute field "*/60": step 60 is out of range (1-59)'],
    ["0 24 * * *", 'hour field "24": 24 is out of range (0-23)'],
    ["0 9-24 * * *", 'hour field "9-24": 24 is out of range (0-23)'],
    ["0 0 0 * *", 'day of month field "0": 0 is out of range (1-31)'],
    ["0 0 1 13 *", 'month field "13": 13 is out of range (1-12)'],
    ["0 0 * * 8", 'day of week field "8": 8 is out of range (0-7)'],
    ["*/0 * * * *", 'minute field "*/0": step 0 is out of range (1-59)'],
    ["*/75 * * * * *", 'second field "*/75": step 75 is out of range (1-59)'],
    ["0 1,5,77 * * * *", 'minute field "1,5,77": 77 is out of range (0-59)'],
  ])("%s", (cron, message) => {
    expect(errorOf(minimalPlus("log: { level: warn }", `schedule: "${cron}"`)).message).toBe(
      `test.yaml:10: schedule: ${message}, got ${JSON.stringify(cron)}`,
    );
  });

  it.each(["*/59 * * * *", "0 0-23/2 * * *", "0 9 1,15,31 1-12 0-7", "*/15 * * * * *", "0 9 * jan mon-fri"])(
    "accepts %s",
    (cron) => {
      expect(parse(minimalPlus(`schedule: "${cron}"`)).config.schedule).toBe(cron);
    },
  );
});
