import { PlatformProblem } from "../../platform/errors.js";
import type { CursorRefusal, CursorRefusals } from "../schema.js";
import type { SyncContext } from "../context.js";
import { setMeta } from "../records/state-updates.js";
import { stoppedStreams, stoppedText, type StreamKind } from "../stopped-streams.js";

/**
 * A stream whose saved cursor the platform refuses (400 `request/invalid-cursor`, spec "Common list
 * behaviour" rule 5) is stopped, not retried: the same cursor gets the same answer. The refusal is
 * shown by `status`, `/readyz` and `/metrics` until `threatbridge rewind`; the rest goes on.
 */

/** A reminder of a stopped stream, in the log, at most this often (the first skip of a process is said at once). */
export const STOPPED_REMINDER_MS = 60 * 60 * 1000;

/** The platform's answer to a cursor it cannot read (corrupted, truncated, hand-built, another installation's). */
export function isCursorRefusal(error: unknown): error is PlatformProblem {
  return error instanceof PlatformProblem && error.status === 400 && error.type === "request/invalid-cursor";
}

/** The platform's words on a refused cursor, one line, without the cursor itself (it can be long). */
function detailOf(ctx: SyncContext, error: PlatformProblem): string {
  const said = error.detail ?? error.title ?? "no detail given";
  const id = error.requestId === undefined ? "" : `, request id ${error.requestId}`;
  return ctx.scrub(`400 request/invalid-cursor: ${said}${id}`.replace(/\s+/g, " ").slice(0, 500));
}

/** Records the refusal (durable with the cycle's next commit) and says so once, at `error`. */
export function noteCursorRefused(ctx: SyncContext, kind: StreamKind, error: PlatformProblem): void {
  const refusal: CursorRefusal = {
    at: new Date(ctx.clock.now()).toISOString(),
    detail: detailOf(ctx, error),
  };
  setMeta(ctx, "cursorRefused", { ...ctx.state.cursorRefused, [kind]: refusal });
  (ctx.streamStopsSaid ??= new Map()).set(kind, ctx.clock.now());
  ctx.logger.error({ stream: kind, detail: refusal.detail }, stoppedText(kind, refusal));
}

/** Whether the stream is stopped (then not read): said at `error` once a process, then hourly at `warn`. */
export function streamStopped(ctx: SyncContext, kind: StreamKind): boolean {
  const refusal = ctx.state.cursorRefused?.[kind];
  if (refusal === undefined) return false;
  const said = (ctx.streamStopsSaid ??= new Map());
  const last = said.get(kind);
  const now = ctx.clock.now();
  if (last === undefined || now - last >= STOPPED_REMINDER_MS) {
    said.set(kind, now);
    const line = { stream: kind, detail: refusal.detail };
    if (last === undefined) ctx.logger.error(line, stoppedText(kind, refusal));
    else ctx.logger.warn(line, `reminder: ${stoppedText(kind, refusal)}`);
  }
  return true;
}

/** Forgets a stream's cursor and its refusal: `rewind`, `reconcile`, and a config change that re-reads. */
export function rewindStream(ctx: Parameters<typeof setMeta>[0], kind: StreamKind): void {
  if (ctx.state.cursors[kind] !== null) setMeta(ctx, "cursors", { ...ctx.state.cursors, [kind]: null });
  const refused = ctx.state.cursorRefused;
  if (refused?.[kind] === undefined) return;
  const rest: CursorRefusals = { ...refused };
  delete rest[kind];
  setMeta(ctx, "cursorRefused", stoppedStreams(rest).length === 0 ? undefined : rest);
}
