import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";
import { auditObserver } from "../../src/sync/event-observers.js";

/**
 * On a terminal (pretty logs) a write is one line, and a backfill's thousands are summarized every
 * few seconds; the JSON logs keep one line per write with every key.
 */

function capture(): { stream: Writable; lines: () => string[] } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text.split("\n").filter(Boolean) };
}

/** A clock the test moves, and the one timer the summary asks for, fired by hand. */
function manualTime(): {
  now: () => number;
  later: (ms: number, fn: () => void) => void;
  at: number;
  fire(): void;
} {
  const t = {
    at: 0,
    pending: [] as Array<() => void>,
    now: () => t.at,
    later: (_ms: number, fn: () => void) => void t.pending.push(fn),
    fire() {
      for (const fn of t.pending.splice(0)) fn();
    },
  };
  return t;
}

const issue = { repo: "acme/threats", number: 7 };

describe("terminal logs: one line per write, a summary in a backfill", () => {
  it("a write's audit line is one line on a terminal (it was five), with the issue and the threat", () => {
    const out = capture();
    const observe = auditObserver(createLogger({ format: "pretty", destination: out.stream }));
    observe({ type: "created", threatId: "t-1", issue });
    expect(out.lines()).toHaveLength(1);
    expect(out.lines()[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: create acme\/threats#7 \(threat t-1\)$/);
  });

  it("in a backfill, ten writes a window are shown and the rest summarized by action when the window ends; any other record comes after the summary", () => {
    const out = capture();
    const time = manualTime();
    const logger = createLogger({
      format: "pretty",
      destination: out.stream,
      writeLines: { now: time.now, later: time.later, windowMs: 5000, allowance: 10 },
    });
    const observe = auditObserver(logger);
    for (let i = 0; i < 40; i += 1) {
      observe({ type: "created", threatId: `t-${i}`, issue: { ...issue, number: i + 1 } });
      observe({ type: "linked", threatId: `t-${i}`, issue: { ...issue, number: i + 1 } });
      time.at += 100;
    }
    expect(out.lines()).toHaveLength(10);
    time.fire();
    expect(out.lines()).toHaveLength(11);
    expect(out.lines()[10]).toMatch(
      /INFO: … and 70 more writes in the last 4 s: create 35, link 35 \(log\.format: json has a line for each\)$/,
    );
    // The next window: ten more lines, then a warning, which the summary of the held writes precedes.
    time.at = 6000;
    for (let i = 0; i < 12; i += 1) observe({ type: "created", threatId: `u-${i}`, issue });
    logger.warn({ threat_id: "u-0" }, "work failed; it is retried later");
    const lines = out.lines();
    expect(lines).toHaveLength(11 + 10 + 1 + 2);
    // Two held: a summary; one held alone would be printed as itself.
    expect(lines[21]).toMatch(/… and 2 more writes in the last 1 s: create 2/);
    expect(lines[22]).toMatch(/WARN: work failed; it is retried later$/);
  });

  it("a window that held a single write prints that write, and `logger.flush()` prints what is held at the end of a command", () => {
    const out = capture();
    const time = manualTime();
    const logger = createLogger({
      format: "pretty",
      destination: out.stream,
      writeLines: { now: time.now, later: time.later, allowance: 1 },
    });
    const observe = auditObserver(logger);
    observe({ type: "created", threatId: "t-1", issue });
    observe({ type: "linked", threatId: "t-1", issue });
    expect(out.lines()).toHaveLength(1);
    logger.flush();
    expect(out.lines()).toEqual([
      expect.stringMatching(/INFO: create acme\/threats#7 \(threat t-1\)$/),
      expect.stringMatching(/INFO: link acme\/threats#7 \(threat t-1\)$/),
    ]);
  });

  it("JSON logs are unchanged: every write has its own line with every key", () => {
    const out = capture();
    const observe = auditObserver(createLogger({ destination: out.stream }));
    for (let i = 0; i < 40; i += 1) observe({ type: "created", threatId: `t-${i}`, issue });
    expect(out.lines()).toHaveLength(40);
    for (const line of out.lines())
      expect(JSON.parse(line)).toMatchObject({ audit: true, action: "create", issue: "acme/threats#7" });
  });
});
