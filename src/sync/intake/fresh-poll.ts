import type { SyncContext } from "../context.js";

/**
 * Whether a repository's change list was read since the connector's last GitHub write, moments ago.
 * Before a state change, the list is read again unless fresh (one conditional request, not a GET
 * per issue), so a person's change is never overwritten: the person wins.
 */
const FRESH_MS = 2_000;

interface Poll {
  at: number;
  writes: number;
}

const polled = new WeakMap<SyncContext, Map<string, Poll>>();

export function notePolled(ctx: SyncContext, repo: string): void {
  const byRepo = polled.get(ctx) ?? new Map<string, Poll>();
  byRepo.set(repo.toLowerCase(), { at: ctx.clock.now(), writes: ctx.github.stats().writes });
  polled.set(ctx, byRepo);
}

export function isFresh(ctx: SyncContext, repo: string): boolean {
  const last = polled.get(ctx)?.get(repo.toLowerCase());
  return (
    last !== undefined && ctx.clock.now() - last.at < FRESH_MS && ctx.github.stats().writes === last.writes
  );
}
