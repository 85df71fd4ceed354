import { describe, expect, it } from "vitest";
import { BACKFILL_PAGES_PER_CYCLE } from "../../../../src/sync/features/notes/backfill.js";
import { notesData } from "../../../../src/sync/features/notes/runtime.js";
import { Harness, makeConfig, threatId } from "../../harness.js";
import { featureContext } from "../../../../src/sync/features/registry.js";

/**
 * `notes.to_github` switched on over issues made while it was off (contract, "The analyst's words on
 * GitHub": "also for issues that existed when `to_github` was switched on"), over the engine's
 * fakes: one walk of the threat listing, a bounded number of its pages per cycle, resumed where it
 * stopped; a crash at any call of that cycle loses no text and posts none twice.
 */

const NOTE_LINE = /<!-- threatbridge:note=([A-Za-z0-9_-]*) -->/;

function madeOff(count: number, text: (i: number) => string): Harness {
  const h = new Harness(makeConfig({ notes: { comments: 0, to_github: false } }));
  for (let i = 1; i <= count; i += 1) h.platform.put({ id: threatId(i), note: text(i) });
  return h;
}

/** Made while off, the echoes of their sections read: the switch-on's intake sees no threat. */
async function settledOff(h: Harness): Promise<void> {
  await h.settle();
  await h.cycle();
}

function switchOn(h: Harness): void {
  h.config = makeConfig({ notes: { comments: 0, to_github: true } });
  h.restart();
}

function noteComments(h: Harness, i: number): string[] {
  return (h.issueFor(threatId(i))[0]?.comments ?? []).filter((c) => NOTE_LINE.test(c));
}

describe("notes.to_github's backfill through the engine", () => {
  it(`reads at most ${BACKFILL_PAGES_PER_CYCLE} pages of the listing a cycle and resumes there: every issue whose threat has analyst text gets one comment, the others none, and the done backfill reads nothing`, async () => {
    const pages = BACKFILL_PAGES_PER_CYCLE + 3;
    const count = pages * 3; // the fake's pages hold 3 threats
    const h = madeOff(count, (i) => (i % 3 === 0 ? "" : `Text ${i}.`));
    await settledOff(h);
    expect(h.issues()).toHaveLength(count);
    switchOn(h);
    await h.cycle();
    expect(notesData(featureContext(h.ctx)).backfill).toMatchObject({ at: expect.any(String) as string });
    const first = Array.from({ length: count }, (_, i) => noteComments(h, i + 1).length);
    expect(first.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(first.reduce((a, b) => a + b, 0)).toBeLessThan((count * 2) / 3);
    // The fake's listing holds every version (each section written is one more): a few cycles.
    for (let i = 0; i < 5 && notesData(featureContext(h.ctx)).backfill !== "done"; i += 1) await h.settle();
    expect(notesData(featureContext(h.ctx)).backfill).toBe("done");
    for (let i = 1; i <= count; i += 1) {
      const expected = i % 3 === 0 ? [] : [expect.stringContaining(`> Text ${i}.`) as string];
      expect(noteComments(h, i), `threat ${i}`).toEqual(expected);
    }
    // Done: an idle cycle walks no listing and makes no write.
    const walks = h.platform.streamRequests.threats;
    const writes = h.github.writes;
    await h.cycle();
    expect(h.platform.streamRequests.threats - walks).toBe(1);
    expect(h.github.writes).toBe(writes);
  });

  it("a crash at any platform or GitHub call of the backfill's cycle (before or after it takes effect): each text is posted once, none lost, no intent left", async () => {
    for (const side of ["platform", "github"] as const) {
      for (const after of [false, true]) {
        for (let call = 1; call <= 8; call += 1) {
          const h = madeOff(4, (i) => (i === 4 ? "" : `Text ${i}.`));
          await settledOff(h);
          switchOn(h);
          h.crashAt(side, call, after);
          await h.cycle().catch(() => undefined);
          h.restart();
          await h.settle();
          const label = `${side} call ${call}, after ${after}`;
          for (let i = 1; i <= 3; i += 1) {
            expect(noteComments(h, i), label).toEqual([expect.stringContaining(`> Text ${i}.`) as string]);
          }
          expect(noteComments(h, 4), label).toEqual([]);
          expect(Object.keys(h.ctx.state.intents), label).toHaveLength(0);
          expect(notesData(featureContext(h.ctx)).backfill, label).toBe("done");
        }
      }
    }
  });
});
