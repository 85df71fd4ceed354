import { fit } from "./terminal-text.js";

/**
 * One writer for a terminal's stderr, shared by the log records and the `sync` progress line, so
 * that they never share a line: while the progress line shows, a record first clears it
 * (carriage return, erase line), is printed, and the line is drawn again below it. Each of these
 * goes out in one write, so nothing else lands between the clear and the redraw.
 */

const CLEAR_LINE = "\r\u001b[2K";

export interface TerminalWriter {
  /** A pino destination: each log record is printed above the progress line. */
  readonly records: { write(text: string): void };
  /** Shows `line` as the progress line, redrawn in place; "" takes it away. */
  progress(line: string): void;
}

export interface TerminalWriterOptions {
  /** The terminal's width (stderr's `columns`): a longer progress line would wrap, and a wrapped line is not cleared. */
  columns?: () => number | undefined;
}

export function terminalWriter(
  out: { write(text: string): unknown },
  opts: TerminalWriterOptions = {},
): TerminalWriter {
  let shown = "";
  return {
    records: {
      write(text) {
        if (shown === "") {
          out.write(text);
          return;
        }
        out.write(`${CLEAR_LINE}${text}${text.endsWith("\n") ? "" : "\n"}${shown}`);
      },
    },
    progress(line) {
      const columns = opts.columns?.();
      const next = columns !== undefined && columns > 1 ? fit(line, columns - 1) : line;
      if (next === shown) return;
      shown = next;
      out.write(`${CLEAR_LINE}${next}`);
    },
  };
}
