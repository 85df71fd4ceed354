import type { CursorRefusal } from "./schema.js";
import { rewindStream } from "./intake/stream-stops.js";
import { STREAM_KINDS, type StreamKind } from "./stopped-streams.js";
import { commitOf, isClean, type StateCommit } from "./records/state-changes.js";
import { createStateContext } from "./records/state-updates.js";
import type { EngineState } from "./records/threat-records.js";

/** `threatbridge rewind`: forgets a stream's cursor and refusal; the re-read costs reads, never writes. */

export interface RewindStep {
  stream: StreamKind;
  /** The cursor forgotten; null when the stream already reads from its beginning. */
  cursor: string | null;
  /** Why the stream was stopped, when it was. */
  refused?: CursorRefusal;
}

/** What `rewind` would do for each stream asked, in a fixed order; pure, so `--dry-run` shows it exactly. */
export function planRewind(
  state: Pick<EngineState, "cursors" | "cursorRefused">,
  streams: ReadonlySet<StreamKind>,
): RewindStep[] {
  return STREAM_KINDS.filter((stream) => streams.has(stream)).map((stream) => {
    const refused = state.cursorRefused?.[stream];
    return { stream, cursor: state.cursors[stream], ...(refused !== undefined ? { refused } : {}) };
  });
}

/** The one commit that forgets what the plan names (null: nothing to forget). */
export function applyRewind(
  loaded: EngineState,
  plan: readonly RewindStep[],
  opts: { freeze?: boolean } = {},
): StateCommit | null {
  const ctx = createStateContext(loaded, { freeze: opts.freeze === true });
  for (const { stream } of plan) rewindStream(ctx, stream);
  return isClean(ctx.changes) ? null : commitOf(ctx.state, ctx.changes);
}
