import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { chooseLogFormat, createLogger, silentLogger } from "../../src/observability/index.js";

/** A stream that keeps what the logger wrote, as text. */
function capture(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('logs (contract, "Logs go to stderr")', () => {
  it("JSON lines carry level names, not pino's numbers", () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream });
    logger.warn({ threat_id: "t-1" }, "work failed; it is retried later");
    const line: unknown = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ level: "warn", threat_id: "t-1", msg: "work failed; it is retried later" });
  });

  it("log.format pretty writes readable text, not JSON", () => {
    const out = capture();
    const logger = createLogger({ format: "pretty", destination: out.stream });
    logger.info({ action: "create", issue: "acme/x#3" }, "issue created");
    const text = out.text();
    expect(text).toContain("INFO");
    expect(text).toContain("issue created");
    expect(text).toContain('action: "create"');
    expect(() => JSON.parse(text.trim())).toThrow();
  });

  it("pretty text still blanks secrets", () => {
    const out = capture();
    createLogger({ format: "pretty", destination: out.stream }).info({ token: "ghp_secret" }, "x");
    expect(out.text()).not.toContain("ghp_secret");
  });

  it("without log.format: text on a terminal, JSON otherwise; the key forces either", () => {
    expect(chooseLogFormat(undefined, true)).toBe("pretty");
    expect(chooseLogFormat(undefined, false)).toBe("json");
    expect(chooseLogFormat("json", true)).toBe("json");
    expect(chooseLogFormat("pretty", false)).toBe("pretty");
  });
});

describe("silentLogger (made when first used: importing the logger does not load pino)", () => {
  it("behaves as pino's silent logger: level, children, a spy on a method sees the calls", () => {
    expect(silentLogger.level).toBe("silent");
    expect(silentLogger.isLevelEnabled("error")).toBe(false);
    const child = silentLogger.child({ component: "x" });
    expect(child.level).toBe("silent");
    expect(child.bindings()).toEqual({ component: "x" });
    const warn = vi.spyOn(silentLogger, "warn");
    silentLogger.warn({ a: 1 }, "said");
    expect(warn.mock.calls).toEqual([[{ a: 1 }, "said"]]);
    warn.mockRestore();
    expect(() => silentLogger.warn("after")).not.toThrow();
  });
});
