import type { Writable } from "node:stream";

/**
 * A reader that closed the output early (`threatbridge status --json | head`): what is still to be
 * written is dropped, quietly, and the command goes on to its end, its exit code its own. Node
 * ignores SIGPIPE, so each write to the closed pipe is an EPIPE error (then ERR_STREAM_DESTROYED),
 * which unhandled ended the process with a stack trace — in the middle of a `sync`, say, whose work
 * should not depend on whether anyone still reads its report. Other errors are thrown as before.
 */
export function ignoreClosedReader(stream: Writable): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
    throw error;
  });
}
