import { describe, expect, it } from "vitest";
import { BEGIN } from "../../../../src/sync/features/notes/section.js";
import { readSlice } from "../../../../src/sync/features/notes/slice.js";
import { Harness, makeConfig, threatId } from "../../harness.js";

/**
 * `notes.to_github` through the engine (contract, "The analyst's words on GitHub"), over the
 * engine's fakes: the issue made with the analyst's text shows it in its body; each change is one
 * comment; a cleared text one comment saying so; the connector's own section, its echo and an
 * unchanged re-delivery nothing; a crash at any GitHub call posts no text twice in a row and loses
 * none; a lost state reads each issue's comments once and posts only what they do not show.
 */

const T1 = threatId(1);
const NOTE_LINE = /<!-- threatbridge:note=([A-Za-z0-9_-]*) -->/;

function setUp(notes: Record<string, unknown> = {}): Harness {
  return new Harness(makeConfig({ notes: { comments: 0, to_github: true, ...notes } }));
}

function comments(h: Harness, id = T1): string[] {
  return h.issueFor(id)[0]?.comments ?? [];
}

function body(h: Harness, id = T1): string {
  return h.issueFor(id)[0]?.body ?? "";
}

/** The analyst edits the note on the platform, keeping the connector's section as it is. */
function analystWrites(h: Harness, text: string, id = T1): void {
  const note = String(h.platform.threats.get(id)?.["note"] ?? "");
  const at = note.indexOf(BEGIN);
  const section = at >= 0 ? note.slice(at) : "";
  h.platform.put({ id, note: section === "" ? text : text === "" ? section : `${text}\n\n${section}` });
}

describe("notes.to_github through the engine", () => {
  it("an issue created while the analyst's text is non-empty shows it in its body under `Platform note`, with its hash line; no comment", async () => {
    const h = setUp();
    h.platform.put({ id: T1, note: "Confirmed exploitable." });
    await h.settle();
    expect(body(h)).toContain("### Platform note\n\n> Confirmed exploitable.\n\n<!-- threatbridge:note=");
    expect(comments(h)).toEqual([]);
    // The echo of the connector's section write, and idle cycles: nothing more.
    const writes = h.github.writes;
    await h.cycle();
    await h.cycle();
    expect(h.github.writes).toBe(writes);
    expect(comments(h)).toEqual([]);
  });

  it("each change of the analyst's text is one comment quoting it whole, starting `Platform note, changed <YYYY-MM-DD HH:MM> UTC:`; a cleared text one comment saying so", async () => {
    const h = setUp();
    h.platform.put({ id: T1, note: "" });
    await h.settle();
    expect(body(h)).not.toContain("Platform note");
    analystWrites(h, "The vendor patch ships Tuesday.\nSecond line.");
    await h.settle();
    expect(comments(h)).toHaveLength(1);
    const [first] = comments(h);
    expect(first).toMatch(
      /^Platform note, changed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC:\n\n> The vendor patch ships Tuesday\.\\\n> Second line\.\n\n<!-- threatbridge:note=[A-Za-z0-9_-]{16} -->$/,
    );
    analystWrites(h, "");
    await h.settle();
    expect(comments(h)).toHaveLength(2);
    expect(comments(h)[1]).toContain("_The analyst cleared the note._");
    expect(NOTE_LINE.exec(comments(h)[1] ?? "")?.[1]).toBe("");
    // Idle: nothing more.
    await h.settle();
    expect(comments(h)).toHaveLength(2);
    expect(readSlice(h.ctx.state.threats.get(T1)).d).toBeUndefined();
  });
});
