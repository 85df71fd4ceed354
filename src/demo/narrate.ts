/** Plain-text helpers of the demo's narration: short lines, plurals. */

export type Say = (line: string) => void;

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function shortId(id: string): string {
  return `${id.slice(0, 8)}…`;
}

export function clip(text: string, max = 60): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

/** The first line of a comment that says something (skips hidden markers and blank lines). */
export function firstLine(body: string): string {
  const line = body
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("<!--"));
  return clip(line ?? "(empty)", 90);
}

export class DemoError extends Error {
  readonly code = "demo_failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DemoError";
  }
}
