import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Harness, REPO, threatId } from "./harness.js";
import { SEVERITIES } from "../../src/shared/severity.js";

/**
 * Property-based tests of the engine over in-memory fakes: whatever the delivery order, duplication
 * or crash point, GitHub ends with exactly one issue per eligible threat, each linked back.
 */

const STATUSES = ["unsolved", "pending", "solved", "false_positive", "accepted"] as const;

const threatSpec = fc.record({
  status: fc.constantFrom(...STATUSES),
  severity: fc.constantFrom(...SEVERITIES),
  name: fc.string({ maxLength: 20 }),
});

function eligible(status: string): boolean {
  return status === "unsolved" || status === "pending";
}

function gitHubState(h: Harness): string[] {
  return h
    .issues(REPO)
    .map((i) => `${i.threatId}|${i.state}|${i.title}|${[...i.labels].sort().join(",")}`)
    .sort();
}

describe("engine properties", () => {
  it("a crash at any call, either side, before or after it lands: exactly one issue per eligible threat, every one linked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(threatSpec, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("platform" as const, "github" as const),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        async (specs, side, call, after) => {
          const h = new Harness();
          specs.forEach((s, i) => h.platform.put({ id: threatId(i + 1), ...s }));
          h.crashAt(side, call, after);
          await h.cycle().catch(() => undefined);
          h.restart();
          const report = await h.settle();
          expect(report.ok).toBe(true);
          specs.forEach((s, i) => {
            const id = threatId(i + 1);
            const issues = h.issueFor(id);
            expect(issues).toHaveLength(eligible(s.status) ? 1 : 0);
            if (issues[0]) {
              const ref = h.platform.threats.get(id)?.external_references.find((r) => r.system === "github");
              expect(ref?.external_id).toBe(`${REPO}#${issues[0].number}`);
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("any interleaving and duplication of deliveries ends in the same GitHub state as one clean delivery", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(threatSpec, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (versions, order, duplicates) => {
          // Round 1 delivers every threat's first version, round 2 the rest: the same versions are
          // visible at each cycle, only their interleaving and repetition differ.
          const clean = new Harness();
          const messy = new Harness();
          // One page holds a whole round. With pages of three, a page that brings no new work
          // starts a drain mid-walk, and a threat whose later version (read on a later page) closes
          // it may get its issue from the earlier one in one order and not in another: right each
          // time, but not the same end state. What this property checks is the intake's
          // indifference to order and repetition; the mid-walk drains have tests of their own.
          clean.platform.pageSize = 32;
          messy.platform.pageSize = 32;
          for (const round of [0, 1]) {
            const batch = versions.flatMap((vs, i) =>
              (round === 0 ? vs.slice(0, 1) : vs.slice(1)).map((v) => ({ id: threatId(i + 1), ...v })),
            );
            for (const v of batch) clean.platform.put(v);
            // Messy: per-threat order kept (the stream is ordered per item), threats interleaved.
            const queues = versions.map((_, i) => batch.filter((v) => v.id === threatId(i + 1)));
            let pick = 0;
            while (queues.some((q) => q.length > 0)) {
              const live = queues.filter((q) => q.length > 0);
              const q = live[(order[pick++ % Math.max(1, order.length)] ?? 0) % live.length];
              const v = q?.shift();
              if (v) messy.platform.put(v);
            }
            for (const d of duplicates) messy.platform.redeliver(threatId((d % versions.length) + 1));
            await clean.settle();
            await messy.settle();
          }
          expect(gitHubState(messy)).toEqual(gitHubState(clean));
        },
      ),
      { numRuns: 100 },
    );
  });
});
