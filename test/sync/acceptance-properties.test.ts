import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Harness, makeConfig, REPO, threatId } from "./harness.js";
import { hasMarker } from "../../src/shared/index.js";

const DAY = 86_400_000;
const ACCEPTANCE = { label: "risk-accepted", default: "30d", max: "90d", warn_before: "7d" };

describe("risk acceptance under crashes", () => {
  it("a crash at any call of each step (the acceptance, its warning, its end), before or after it lands: each comment once, the verdicts right", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("platform" as const, "github" as const),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 3, maxLength: 3 }),
        fc.boolean(),
        async (side, calls, after) => {
          const h = new Harness(makeConfig({ acceptance: ACCEPTANCE }));
          const id = threatId(1);
          h.platform.put({ id, status: "unsolved", severity: "high", name: "Accepted one" });
          await h.settle();
          const issue = h.issueFor(id)[0];
          if (!issue) throw new Error("no issue");
          issue.labels.push("risk-accepted");
          h.github.personSets(REPO, issue.number, "closed", "alice", "not_planned");
          const count = (text: string): number => issue.comments.filter((c) => c.includes(text)).length;
          for (const [phase, days] of [0, 25, 31].entries()) {
            h.clockOffsetMs = days * DAY;
            h.crashAt(side, calls[phase] ?? 1, after);
            await h.cycle().catch(() => undefined);
            h.restart();
            const report = await h.settle();
            expect(report.ok).toBe(true);
          }
          expect(count("Risk accepted until")).toBe(1);
          expect(count("risk acceptance of this threat ends on")).toBe(1);
          expect(count("risk acceptance of this threat has ended")).toBe(1);
          expect(h.platform.threats.get(id)?.status).toBe("unsolved");
          expect(issue.state).toBe("open");
          expect(h.issueFor(id)).toHaveLength(1);
        },
      ),
      { numRuns: 120 },
    );
  });
});

/**
 * Contract, "Workflow" → "Recurrence": with `recurrence: new_issue`, a threat `unsolved` again
 * after its issue was closed gets a new issue, one per occurrence whatever crashes (the create's
 * intent names the occurrence, and recovery looks for that occurrence's marker only); the old
 * issue stays closed with one comment naming the new one, and the platform's link names the new.
 */

describe("recurrence: new_issue under crashes", () => {
  it("a crash at any GitHub or platform call of the recurrence, before or after it lands: one issue per occurrence, linked, the old one named once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom("platform" as const, "github" as const),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        async (threats, side, call, after) => {
          const h = new Harness(makeConfig({ recurrence: "new_issue" }));
          const ids = Array.from({ length: threats }, (_, i) => threatId(i + 1));
          for (const id of ids) h.platform.put({ id, status: "unsolved", severity: "high", name: `T ${id}` });
          await h.settle();
          for (const id of ids) h.platform.put({ id, status: "solved" });
          await h.settle();
          const first = new Map(ids.map((id) => [id, h.issueFor(id)[0]?.number]));
          for (const id of ids) h.platform.put({ id, status: "unsolved" });
          h.crashAt(side, call, after);
          await h.cycle().catch(() => undefined);
          h.restart();
          const report = await h.settle();
          expect(report.ok).toBe(true);
          for (const id of ids) {
            const issues = h.issueFor(id);
            expect(issues).toHaveLength(2);
            const old = issues.find((i) => i.number === first.get(id));
            const fresh = issues.find((i) => i.number !== first.get(id));
            expect(old?.state).toBe("closed");
            expect(fresh?.state).toBe("open");
            expect(hasMarker(fresh?.body, id, 2)).toBe(true);
            expect(fresh?.body).toContain(`Recurrence of ${REPO}#${first.get(id)}`);
            expect(
              old?.comments.filter((c) => c.includes(`continues in ${REPO}#${fresh?.number}`)),
            ).toHaveLength(1);
            const ref = h.platform.threats.get(id)?.external_references.find((r) => r.system === "github");
            expect(ref?.external_id).toBe(`${REPO}#${fresh?.number}`);
          }
        },
      ),
      { numRuns: 120 },
    );
  });
});
