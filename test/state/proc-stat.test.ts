import { describe, expect, it } from "vitest";
import { parseProcStat } from "../../src/state/lock-judge.js";

/** A /proc/<pid>/stat line (proc(5)) with the given command name, state and start time (field 22). */
function statLine(comm: string, state: string, startTime: string): string {
  const after = [
    state,
    "1",
    "1",
    "0",
    "0",
    "-1",
    "4194304",
    "102",
    "0",
    "0",
    "0",
    "0",
    "0",
    "0",
    "0",
    "20",
    "0",
    "1",
    "0",
  ];
  return `1234 (${comm}) ${after.join(" ")} ${startTime} 3133440 382 18446744073709551615\n`;
}

describe("parseProcStat", () => {
  it("reads the state (field 3) and the start time (field 22)", () => {
    expect(parseProcStat(statLine("node", "S", "47910"))).toEqual({ state: "S", startTime: "47910" });
  });

  it("counts fields from the last ')' so a command name with spaces and parentheses does not shift them", () => {
    expect(parseProcStat(statLine("a) b (c d", "Z", "99"))).toEqual({ state: "Z", startTime: "99" });
  });

  it("gives null for text that is not a stat line", () => {
    expect(parseProcStat("")).toBeNull();
    expect(parseProcStat("1234 (x) S 1 2")).toBeNull();
  });
});
