import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_MS, LockHeldError, acquireLock, type Lock, type LockStep } from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";

/**
 * Contract, "Command line": two processes never work on one state file. Starters on several hosts
 * race for a lock whose holder stopped renewing (its lease ran out on a fake clock), while that
 * stalled holder wakes up and renews during the race or after it. fast-check's scheduler decides the order of every step
 * between two file operations (real files in a temp directory), so the runs cover interleavings
 * that timers alone would rarely produce. Whatever the order: exactly one process believes it
 * holds the lock, and the lock file is that one's.
 */

const T0 = Date.parse("2026-03-01T10:00:00Z");
const noTimer = { repeat: () => () => undefined };
let root: { dir: string; cleanup: () => Promise<void> };
let round = 0;

beforeAll(async () => {
  root = await withTempDir();
});
afterAll(async () => {
  await root.cleanup();
});

describe("racing for a stale lease (property)", () => {
  it("of starters racing for a lease that ran out, and its stalled holder renewing, exactly one holds the lock", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 2, max: 4 }),
        fc.boolean(),
        async (s, starters, holderWakes) => {
          round += 1;
          const statePath = join(root.dir, `run-${round}`, "state.json");
          await mkdir(join(root.dir, `run-${round}`), { recursive: true });
          let now = T0;
          const stalled = await acquireLock(statePath, {
            now: () => now,
            timer: noTimer,
            identity: { pid: 1, hostname: "node-0" },
          });
          now = T0 + LEASE_MS + 1;
          const stepFor =
            (who: string): LockStep =>
            (point) =>
              s.schedule(Promise.resolve(), `${who} ${point}`).then(() => undefined);
          const racers: Promise<Lock | null>[] = [];
          for (let i = 1; i <= starters; i++) {
            const step = stepFor(`node-${i}`);
            racers.push(
              acquireLock(statePath, {
                now: () => now,
                timer: noTimer,
                step,
                sleep: () => step("sleep"),
                identity: { pid: 1 + i, hostname: `node-${i}` },
              }).catch((err: unknown) => {
                if (err instanceof LockHeldError) return null;
                throw err;
              }),
            );
          }
          const wake = holderWakes
            ? s.schedule(Promise.resolve(), "node-0 wakes").then(() => stalled.renew())
            : null;
          const results = await s.waitFor(Promise.all([Promise.all(racers), wake]));
          // A holder whose lease ran out knows where it stands once its renewal answers: a takeover
          // in progress is waited for, never answered "busy" (that holder would work on, unaware).
          if (holderWakes) expect(["renewed", "lost"]).toContain(results[1]);
          // A holder that slept through the race wakes afterwards: its first renewal tells it.
          if (!holderWakes) await stalled.renew();
          const winners = results[0].filter((lock): lock is Lock => lock !== null);
          const holders = [...winners, ...(stalled.lost ? [] : [stalled])];
          expect(holders).toHaveLength(1);
          const content: unknown = JSON.parse(await readFile(`${statePath}.lock`, "utf8"));
          expect(content).toMatchObject({ token: holders[0]?.holder.token });
          for (const lock of [...winners, stalled]) await lock.release();
          await writeFile(`${statePath}.done`, "");
        },
      ),
      { numRuns: 80 },
    );
  });
});
