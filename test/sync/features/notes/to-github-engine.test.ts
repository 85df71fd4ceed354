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

  it("the connector's own section, its echo and a re-delivery of an unchanged text post nothing; two changes in one cycle post one comment, the newest", async () => {
    const h = setUp();
    h.platform.put({ id: T1, note: "First words." });
    await h.settle();
    const note = String(h.platform.threats.get(T1)?.["note"]);
    expect(note.startsWith(`First words.\n\n${BEGIN}`)).toBe(true);
    // The same note again (a new version, same text) and the connector's section alone changed.
    h.platform.put({ id: T1, note });
    h.platform.put({ id: T1, note: note.replace("State: open", "State: open (edited)") });
    await h.settle();
    expect(comments(h)).toEqual([]);
    analystWrites(h, "Second words.");
    analystWrites(h, "Third words.");
    await h.settle();
    expect(comments(h)).toHaveLength(1);
    expect(comments(h)[0]).toContain("> Third words.");
  });

  it("the text is cut at notes.max_length with …, and rendered inertly: no @mention, no #12 or owner/repo#12, no HTML", async () => {
    const h = setUp({ max_length: 120 });
    h.platform.put({ id: T1, note: "" });
    await h.settle();
    analystWrites(h, `Ask @alice about #12 and acme/repo#12 <img src=x onerror=alert(1)> ${"x".repeat(300)}`);
    await h.settle();
    const [comment] = comments(h);
    expect(comment).toContain(`@\u200Balice`);
    expect(comment).toContain(`#\u200B12`);
    expect(comment).toContain(`acme/repo#\u200B12`);
    expect(comment).toContain("&lt;img");
    expect(comment).not.toContain("<img");
    expect(comment).not.toMatch(/@alice|[^\u200B]#12/);
    const quoted = /\n\n> ([^\n]*)\n\n/.exec(comment ?? "")?.[1] ?? "";
    expect(quoted.endsWith("x…")).toBe(true);
    expect(quoted.split("x").length - 1).toBeLessThan(120);
  });

  it("a crash at any GitHub call of the comment's cycle, and again at any call of the recovery, posts the same text at most once in a row and never loses one", async () => {
    // The cycle's calls: the change listing, then the comment; the recovery's: the issue's comments.
    for (const after of [false, true]) {
      for (let call = 1; call <= 3; call += 1) {
        for (let again = 0; again <= 3; again += 1) {
          const h = setUp();
          h.platform.put({ id: T1, note: "Before." });
          await h.settle();
          analystWrites(h, `Changed (${call}, ${after}, ${again}).`);
          h.crashAt("github", call, after);
          await h.cycle().catch(() => undefined);
          h.restart();
          if (again > 0) {
            h.crashAt("github", again, !after);
            await h.cycle().catch(() => undefined);
            h.restart();
          }
          await h.settle();
          const shown = comments(h).map((c) => NOTE_LINE.exec(c)?.[1]);
          const label = `call ${call}, after ${after}, again ${again}`;
          expect(shown, label).toHaveLength(1);
          expect(comments(h)[0], label).toContain(`> Changed (${call}, ${after}, ${again}).`);
          expect(Object.keys(h.ctx.state.intents), label).toHaveLength(0);
        }
      }
    }
  });

  it("a crash at any GitHub call after a lost state (the issue's comments read first) posts no text twice in a row", async () => {
    for (const after of [false, true]) {
      for (let call = 1; call <= 4; call += 1) {
        const h = setUp();
        h.platform.put({ id: T1, note: "" });
        await h.settle();
        analystWrites(h, "Shown once.");
        await h.settle();
        h.disk = null;
        h.restart();
        analystWrites(h, `Changed while lost (${call}, ${after}).`);
        h.crashAt("github", call, after);
        await h.settle(3).catch(() => undefined);
        h.restart();
        await h.settle();
        const shown = comments(h).map((c) => NOTE_LINE.exec(c)?.[1]);
        const label = `call ${call}, after ${after}`;
        expect(shown, label).toHaveLength(2);
        expect(shown[0], label).not.toBe(shown[1]);
        expect(comments(h)[1], label).toContain(`> Changed while lost (${call}, ${after}).`);
        expect(Object.keys(h.ctx.state.intents), label).toHaveLength(0);
      }
    }
  });

  it("after a lost state, each issue whose threat has analyst text costs one comment read, and only a text its comments do not show is posted", async () => {
    const h = setUp();
    const T2 = threatId(2);
    const T3 = threatId(3);
    h.platform.put({ id: T1, note: "" });
    h.platform.put({ id: T2, note: "Shown in the body." });
    h.platform.put({ id: T3, note: "" });
    await h.settle();
    analystWrites(h, "Shown in a comment.");
    await h.settle();
    expect(comments(h)).toHaveLength(1);
    h.disk = null;
    h.restart();
    // While the state is lost, the analyst changes T2's text.
    analystWrites(h, "Changed while the state was lost.", T2);
    let reads = 0;
    const list = h.github.listComments.bind(h.github);
    h.github.listComments = (repo, number) => {
      reads += 1;
      return list(repo, number);
    };
    await h.settle();
    await h.settle();
    expect(comments(h)).toHaveLength(1);
    expect(comments(h, T2)).toHaveLength(1);
    expect(comments(h, T2)[0]).toContain("> Changed while the state was lost.");
    expect(comments(h, T3)).toEqual([]);
    // One read for each of T1 and T2 (T3 has no analyst text).
    expect(reads).toBe(2);
  });

  it("an issue made before to_github was switched on: the next change of its text is posted (one comment read first)", async () => {
    const h = new Harness(makeConfig({ notes: { comments: 0 } }));
    h.platform.put({ id: T1, note: "Old words." });
    await h.settle();
    expect(body(h)).not.toContain("Platform note");
    h.config = makeConfig({ notes: { comments: 0, to_github: true } });
    h.restart();
    analystWrites(h, "New words.");
    await h.settle();
    expect(comments(h)).toHaveLength(1);
    expect(comments(h)[0]).toContain("> New words.");
    expect(h.events.filter((e) => e.type === "feature_written" && e.action === "note_comment")).toHaveLength(
      1,
    );
  });
});
