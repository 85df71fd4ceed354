import { describe, expect, it } from "vitest";
import { demoTally } from "../../src/demo/tally.js";
import type { EngineEvent } from "../../src/sync/index.js";

const issue = { repo: "acme/security-threats", number: 1 };

describe("demo tally (the demo narrates from engine events)", () => {
  it("counts each cycle's reads and writes, and all cycles together", () => {
    const tally = demoTally();
    const first: EngineEvent[] = [
      { type: "cycle_started", at: 0 },
      { type: "stream_read", stream: "assets", items: 4 },
      { type: "stream_read", stream: "threats", items: 12 },
      { type: "created", threatId: "a", issue },
      { type: "created", threatId: "b", issue },
      { type: "linked", threatId: "a", issue },
      { type: "linked", threatId: "b", issue },
      { type: "threat_due", threatId: "a" },
    ];
    const second: EngineEvent[] = [
      { type: "cycle_started", at: 1 },
      { type: "stream_read", stream: "threats", items: 1 },
      { type: "verdict_sent", threatId: "a", issue, detail: "solved", answered: "solved", by: "alice" },
      { type: "closed", threatId: "b", issue },
      { type: "reopened", threatId: "a", issue },
      { type: "commented", threatId: "a", issue },
      { type: "updated", threatId: "b", issue },
    ];
    for (const e of first) tally.observe(e);
    expect(tally.cycle()).toEqual({
      threatsRead: 12,
      assetsRead: 4,
      created: 2,
      updated: 0,
      stateChanges: 0,
      comments: 0,
      verdicts: 0,
      links: 2,
    });
    for (const e of second) tally.observe(e);
    expect(tally.cycle()).toEqual({
      threatsRead: 1,
      assetsRead: 0,
      created: 0,
      updated: 1,
      stateChanges: 2,
      comments: 1,
      verdicts: 1,
      links: 0,
    });
    expect(tally.total()).toEqual({
      threatsRead: 13,
      assetsRead: 4,
      created: 2,
      updated: 1,
      stateChanges: 2,
      comments: 1,
      verdicts: 1,
      links: 2,
    });
  });
});
