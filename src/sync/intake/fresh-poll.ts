import type { SyncContext } from "../context.js";

/**
 * Whether a repository's change list was read since the connector's last GitHub write (and
 * moments ago). Before a state change the connector makes sure no person's change is still unread
 * (the person wins) by reading the change list again unless it is fresh — one
 * conditional request for the whole repository (a 304 costs no rate-limit point), never a GET of
 * the issue before every PATCH. A person who acts between two of the connector's
 * writes is read before the second, as the GET before each write used to (people-and-refusals e2e).
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
