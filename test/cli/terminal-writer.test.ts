import { describe, expect, it } from "vitest";
import { terminalWriter } from "../../src/cli/terminal-writer.js";
import { createLogger } from "../../src/observability/index.js";

/**
 * "On a terminal, log records print above the progress line, never glued to it": the writer that
 * `sync` shares between pino-pretty and the progress line, on a fake TTY that applies carriage
 * returns, erase-line and newlines as a terminal does.
 */

/** The screen a terminal shows for what was written (only \r, ESC[2K and \n move anything). */
function fakeTty(): { write(text: string): boolean; screen(): string[]; writes: string[] } {
  const lines: string[] = [""];
  let col = 0;
  const writes: string[] = [];
  return {
    writes,
    write(text) {
      writes.push(text);
      // eslint-disable-next-line no-control-regex -- the terminal's control sequences are what is read
      for (const part of text.split(/(\r|\u001b\[2K|\n)/)) {
        const row = lines.length - 1;
        if (part === "\r") col = 0;
        else if (part === "\u001b[2K") lines[row] = "";
        else if (part === "\n") {
          lines.push("");
          col = 0;
        } else if (part !== "") {
          const current = lines[row] ?? "";
          lines[row] = current.slice(0, col).padEnd(col) + part + current.slice(col + part.length);
          col += part.length;
        }
      }
      return true;
    },
    screen: () => lines,
  };
}

describe("terminal writer: log records and the progress line", () => {
  it("a record written while the progress line shows goes above it, and the line is drawn again below", () => {
    const tty = fakeTty();
    const writer = terminalWriter(tty);
    const logger = createLogger({ format: "pretty", destination: writer.records });
    writer.progress("read 10 threats, planned 10, written 3, queued 7; ETA about 11 min");
    logger.info({ action: "create", threat_id: "t-4" }, "create");
    writer.progress("read 10 threats, planned 10, written 4, queued 6; ETA about 10 min");
    logger.warn("GitHub secondary rate limit: waiting 60 s");
    logger.info({ action: "create", threat_id: "t-5" }, "create");
    const screen = tty.screen();
    // Every record line is whole, none carries the progress text, and the progress line is last.
    expect(screen.at(-1)).toBe("read 10 threats, planned 10, written 4, queued 6; ETA about 10 min");
    const records = screen.slice(0, -1);
    expect(records.filter((l) => /^\[\d\d:\d\d:\d\d\] (INFO|WARN):/.test(l))).toHaveLength(3);
    for (const line of records) expect(line).not.toContain("ETA");
    expect(records.join("\n")).toContain("GitHub secondary rate limit: waiting 60 s");
    // Each record is one write: nothing can land between the clear and the redraw.
    expect(tty.writes.filter((w) => w.includes("INFO") || w.includes("WARN"))).toHaveLength(3);
    for (const w of tty.writes.filter((x) => x.includes("INFO")))
      // eslint-disable-next-line no-control-regex -- the clear before the record is what is checked
      expect(w).toMatch(/^\r\u001b\[2K\[.*\n(.*\n)*read 10 threats/);
  });

  it("without a progress line, records are written as they are; taking the line away clears it", () => {
    const tty = fakeTty();
    const writer = terminalWriter(tty);
    writer.records.write("first\n");
    writer.progress("queued 3; ETA about 2 s");
    writer.progress("");
    writer.records.write("second\n");
    expect(tty.writes).toEqual(["first\n", "\r\u001b[2Kqueued 3; ETA about 2 s", "\r\u001b[2K", "second\n"]);
    expect(tty.screen()).toEqual(["first", "second", ""]);
  });

  it("a progress line wider than the terminal is cut to fit (a wrapped line would not be cleared)", () => {
    const tty = fakeTty();
    const writer = terminalWriter(tty, { columns: () => 20 });
    writer.progress("read 1000 threats, planned 1000, written 10, queued 990; ETA about 16 min");
    writer.records.write("record\n");
    expect(tty.screen()).toEqual(["record", "read 1000 threats,…"]);
  });
});
