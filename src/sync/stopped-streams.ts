import type { CursorRefusal, CursorRefusals } from "./schema.js";

/** How a stream stopped by a refused cursor is named to the operator; pure, so `status` loads no engine. */

export type StreamKind = "threats" | "assets";

export const STREAM_KINDS: readonly StreamKind[] = ["assets", "threats"];

/** The `rewind` flag that forgets a stream's cursor, as the operator types it. */
export function rewindCommand(kind: StreamKind): string {
  return `threatbridge rewind --${kind}`;
}

/** What an operator reads about a stopped stream (log, `status`, `/readyz`): what happened and what to do. */
export function stoppedText(kind: StreamKind, refusal: CursorRefusal): string {
  return (
    `the ${kind} stream is stopped: the platform refused its saved cursor at ${refusal.at} ` +
    `(${refusal.detail}); run \`${rewindCommand(kind)}\` to read it again from its beginning ` +
    `(what the state already holds costs no GitHub writes)`
  );
}

/** The stopped streams of a state, in a fixed order. */
export function stoppedStreams(
  refused: CursorRefusals | undefined,
): Array<{ stream: StreamKind } & CursorRefusal> {
  const out: Array<{ stream: StreamKind } & CursorRefusal> = [];
  for (const stream of STREAM_KINDS) {
    const refusal = refused?.[stream];
    if (refusal !== undefined) out.push({ stream, ...refusal });
  }
  return out;
}
