/**
 * The audit lines of a terminal (pretty logs): one line per write, and in a backfill a short summary
 * every few seconds instead of thousands of lines. In each window of `windowMs` the first
 * `allowance` writes are printed one line each; the rest are counted by action, and one line says
 * how many of each followed once the window ends (or before any other record, so that the order
 * stays true). JSON logs are not touched: every write keeps its own line with every key there.
 */

export interface WriteLinesOptions {
  now: () => number;
  /** Default 5 s. */
  windowMs?: number;
  /** Writes printed one line each per window; default 10. */
  allowance?: number;
  /**
   * Runs `fn` once after `ms` (the summary of a window no further record ends); default an unref'd
   * timer, which never holds a process open.
   */
  later?: (ms: number, fn: () => void) => void;
}

export interface WriteLines {
  /** A write's audit record (`action` its audit action), rendered as `line`. */
  write(action: string, line: string): void;
  /** Any other record: the summary of what was held goes first. */
  other(line: string): void;
  /** Prints the summary of what is held now (at the end of a command). */
  flush(): void;
}

const realLater = (ms: number, fn: () => void): void => {
  setTimeout(fn, ms).unref();
};

/** `summary(text)`: the summary as a record line, rendered like the others (an `info` record). */
export function writeLines(
  print: (line: string) => void,
  summary: (text: string) => string,
  opts: WriteLinesOptions,
): WriteLines {
  const windowMs = opts.windowMs ?? 5_000;
  const allowance = opts.allowance ?? 10;
  const later = opts.later ?? realLater;
  let windowStart: number | null = null;
  let shown = 0;
  let held = new Map<string, number>();
  let heldSince = 0;
  /** The last line held: a window that held one write prints it rather than a summary of one. */
  let lastHeld = "";
  let timerSet = false;

  function flush(): void {
    if (held.size === 0) return;
    const counts = [...held];
    const total = counts.reduce((sum, [, n]) => sum + n, 0);
    const seconds = Math.max(1, Math.round((opts.now() - heldSince) / 1000));
    held = new Map();
    if (total === 1) {
      print(lastHeld);
      return;
    }
    print(
      summary(
        `… and ${total} more writes in the last ${seconds} s: ` +
          `${counts.map(([action, n]) => `${action} ${n}`).join(", ")} (log.format: json has a line for each)`,
      ),
    );
  }

  return {
    write(action, line) {
      const now = opts.now();
      if (windowStart === null || now - windowStart >= windowMs) {
        flush();
        windowStart = now;
        shown = 0;
      }
      if (shown < allowance) {
        shown += 1;
        print(line);
        return;
      }
      if (held.size === 0) heldSince = now;
      held.set(action, (held.get(action) ?? 0) + 1);
      lastHeld = line;
      if (!timerSet) {
        timerSet = true;
        later(Math.max(0, windowStart + windowMs - now), () => {
          timerSet = false;
          flush();
        });
      }
    },
    other(line) {
      flush();
      print(line);
    },
    flush,
  };
}
