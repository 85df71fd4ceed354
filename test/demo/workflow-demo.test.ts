import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";

/**
 * `threatbridge demo --workflow`: a group with its
 * sub-issues, a due date and a breach, an acceptance and its expiry, each read back from the
 * GitHub stand-in and the simulator, with days passing on the story's clock, which the connector,
 * the simulator and the stand-in share.
 */
describe("threatbridge demo --workflow", () => {
  it("narrates a parent with sub-issues, due dates and a breach, an acceptance, its warning and its expiry, a route by asset; exits 0", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env: {} };
    const code = await main(["demo", "--workflow"], io);
    const text = out.join("\n");
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(text).toMatch(/[1-9]\d* parent issues? for their groups/);
    expect(text).toMatch(/#\d+ ".*" has [2-9]\d* sub-issues/);
    expect(text).toMatch(/Due: \d{4}-\d{2}-\d{2}/);
    // The created issues joined the project board, their fields set (github.project).
    expect(text).toMatch(/joined the project board acme\/1 \([1-9]\d* items?/);
    expect(text).toMatch(/#\d+ +Severity: (Critical|High|Medium|Low|Informational)/);
    expect(text).toMatch(/[1-9]\d* open issues? passed (its|their) due date: "sla:breached" added/);
    expect(text).toMatch(/status=accepted; the platform now says "accepted"/);
    expect(text).toMatch(/a warning on #\d+/);
    // Notes: the section of the accepted threat's note names its issue, closed as not planned, and carol's comment.
    expect(text).toMatch(/--- threatbridge: GitHub ---\n\s+Issue: acme\/[^#]+#\d+/);
    expect(text).toMatch(/State: closed \(not_planned\)/);
    expect(text).toMatch(/carol at \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC:/);
    expect(text).toMatch(/the acceptance has expired: the platform says "unsolved", #\d+ is open/);
    // One clock for the whole story, whatever today is: it starts on 2026-12-01, and carol's
    // comment, made after "three days later", carries the story's date, not the real one.
    expect(text).toContain("Three days later (on the connector's clock: 2026-12-04)");
    expect(text).toMatch(/carol at 2026-12-04 \d{2}:\d{2} UTC:/);
    expect(text).toMatch(/Accepted until: 2026-12-24/);
    // notes.to_github: the analyst's words arrive as one comment, quoted inertly; the echo costs nothing.
    expect(text).toMatch(/one comment on #\d+, quoted inertly/);
    expect(text).toMatch(
      /Platform note, changed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC:\n\s+> Confirmed exploitable from the internet; @\u200Bdave says/,
    );
    expect(text).toMatch(/the next cycle made 0 GitHub writes/);
    // A route by asset name and field (routes): the issue in the team's repository, the body's line, the person's change standing.
    expect(text).toMatch(/#\d+ lands in acme\/payments, assigned to payments-oncall, labelled "payments"/);
    expect(text).toContain(
      '"Routed here by routes[0]: asset_name *.payments.acme.test, asset.business_value critical"',
    );
    expect(text).toMatch(/still without "payments", still assigned to dave: the person's change stands/);
  }, 60_000);
});
