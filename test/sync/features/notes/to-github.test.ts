import { describe, expect, it } from "vitest";
import { NotesConfig } from "../../../../src/config/notes.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import {
  analystText,
  commentBody,
  cutText,
  lastShown,
  noteLine,
  textHash,
  withBodyNote,
} from "../../../../src/sync/features/notes/analyst.js";
import { notes } from "../../../../src/sync/features/notes/index.js";
import { BEGIN, END, sectionHash } from "../../../../src/sync/features/notes/section.js";
import { changeSlice, readSlice } from "../../../../src/sync/features/notes/slice.js";
import { notesTagger } from "../../../../src/sync/features/notes/tagger.js";
import {
  analystOnVersion,
  commentDue,
  noteShown,
  renderBodyNote,
} from "../../../../src/sync/features/notes/to-github.js";
import { markerFor } from "../../../../src/shared/index.js";
import { Harness, makeConfig, threatId } from "../../harness.js";
import { featureContext } from "../../../../src/sync/features/registry.js";

/**
 * The plan of `notes.to_github` (contract, "The analyst's words on GitHub"), pure: what the
 * analyst's text is, its hash, when a comment is due (a change; not the connector's section, its
 * echo or an unchanged re-delivery), the cut at `notes.max_length`, and the inert rendering.
 */

const config = NotesConfig.parse({ to_github: true });
const ID = threatId(1);
const SECTION = `${BEGIN}\nIssue: acme/t#7 https://github.com/acme/t/issues/7\nState: open\n${END}`;
const withIssue: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: "a",
  updatedAt: "2026-01-01T00:00:00Z",
  issue: { repo: "acme/t", number: 7, url: "https://github.com/acme/t/issues/7", state: "open", hash: "h" },
};

/** A threat version through the intake: the record it leaves (over a harness's context). */
function version(record: ThreatRecord, note: string, at = "2026-01-02T10:00:30Z"): ThreatRecord {
  const h = new Harness(makeConfig({ notes: { to_github: true } }));
  return analystOnVersion(featureContext(h.ctx), config, ID, record, note, at);
}

describe("the analyst's text of a note (outside the connector's section)", () => {
  it("is the note without the section and the blank line before it, CRLF made LF, trimmed", () => {
    expect(analystText(`Confirmed.\r\nOwner: ops\r\n\r\n${SECTION}`)).toBe("Confirmed.\nOwner: ops");
    expect(analystText(`Before.\n\n${SECTION}\n\nAfter.`)).toBe("Before.\n\nAfter.");
    expect(analystText(SECTION)).toBe("");
    expect(analystText("")).toBe("");
  });

  it("hashes to 16 characters, and an empty text to '' (the issue shows none)", () => {
    expect(textHash("Confirmed.")).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(textHash("Confirmed.")).not.toBe(textHash("Confirmed!"));
    expect(textHash("")).toBe("");
  });

  it("is cut at max_length with …, never splitting a surrogate pair", () => {
    expect(cutText("abcdef", 6)).toBe("abcdef");
    expect(cutText("abcdefg", 6)).toBe("abcde…");
    expect(cutText("abcd😀x", 6)).toBe("abcd…");
  });
});

describe("what a threat version makes due (notes.to_github)", () => {
  it("before the issue is made: the text is kept for its body, nothing is due", () => {
    const { issue: _none, ...noIssue } = withIssue;
    const slice = readSlice(version(noIssue, `Confirmed.\n\n${SECTION}`));
    expect(slice.b).toBe("Confirmed.");
    expect(slice.d).toBeUndefined();
  });

  it("a changed text is due (hash, text, time); the same text, the connector's section changed, or its echo are not", () => {
    const shown = changeSlice(withIssue, (s) => ({ ...s, g: textHash("Confirmed.") }));
    expect(readSlice(version(shown, `Confirmed.\n\n${SECTION}`)).d).toBeUndefined();
    const sectionChanged = SECTION.replace("State: open", "State: closed (completed)");
    expect(readSlice(version(shown, `Confirmed.\n\n${sectionChanged}`)).d).toBeUndefined();
    const changed = readSlice(version(shown, `Patch ships Tuesday.\n\n${SECTION}`));
    expect(changed).toMatchObject({
      d: textHash("Patch ships Tuesday."),
      t: "Patch ships Tuesday.",
      k: "2026-01-02T10:00:30Z",
      p: 1,
    });
  });

  it("a cleared text is due as '' on an issue that showed one; on an issue that showed none, nothing is", () => {
    const shown = changeSlice(withIssue, (s) => ({ ...s, g: textHash("Confirmed.") }));
    expect(readSlice(version(shown, SECTION))).toMatchObject({ d: "" });
    const none = changeSlice(withIssue, (s) => ({ ...s, g: "" }));
    expect(readSlice(version(none, SECTION)).d).toBeUndefined();
  });

  it("a text changed back to what the issue shows before its comment went out is no longer due", () => {
    const shown = changeSlice(withIssue, (s) => ({ ...s, g: textHash("Confirmed.") }));
    const due = version(shown, `Changed.\n\n${SECTION}`);
    expect(readSlice(version(due, `Confirmed.\n\n${SECTION}`)).d).toBeUndefined();
  });

  it("a change past max_length shows nothing new: nothing is due", () => {
    const short = NotesConfig.parse({ to_github: true, max_length: 60 });
    const h = new Harness(makeConfig({ notes: { to_github: true, max_length: 60 } }));
    const long = "x".repeat(100);
    const shown = changeSlice(withIssue, (s) => ({ ...s, g: textHash(cutText(long, 60)) }));
    const after = analystOnVersion(
      featureContext(h.ctx),
      short,
      ID,
      shown,
      `${long}y\n\n${SECTION}`,
      "2026-01-02T10:00:30Z",
    );
    expect(readSlice(after).d).toBeUndefined();
  });
});

describe("the comment due and what it shows", () => {
  it("is planned from the record: the text, its hash, when it changed; with a read first when what the issue showed is not known", () => {
    const due = changeSlice(withIssue, (s) => ({
      ...s,
      g: "h1",
      d: "h2",
      t: "New.",
      k: "2026-01-02T10:00:30Z",
    }));
    expect(commentDue(ID, due)).toMatchObject({
      step: "comment",
      repo: "acme/t",
      number: 7,
      text: "New.",
      hash: "h2",
      check: false,
    });
    const unknown = changeSlice(withIssue, (s) => ({ ...s, d: "h2", t: "New.", s: "h0" }));
    expect(commentDue(ID, unknown)).toMatchObject({ check: true, body: "h0" });
    expect(commentDue(ID, withIssue)).toBeNull();
    // Once shown, nothing is due; a newer text due meanwhile stays due.
    expect(commentDue(ID, noteShown(due, "h2"))).toBeNull();
    expect(readSlice(noteShown(due, "h1"))).toMatchObject({ g: "h1", d: "h2" });
  });

  it("starts `Platform note, changed <YYYY-MM-DD HH:MM> UTC:`, quotes the text inertly (no @mention, no #12 or owner/repo#12, no HTML), ends with its hash line", () => {
    const text = "Ask @alice about #12 and acme/repo#12.\n<script>alert(1)</script>\n\n**bold** [link](x)";
    const body = commentBody(text, textHash(text), "2026-01-02T10:00:30Z");
    expect(body.startsWith("Platform note, changed 2026-01-02 10:00 UTC:\n\n> ")).toBe(true);
    expect(body.endsWith(`\n\n${noteLine(textHash(text))}`)).toBe(true);
    expect(body).toContain("@\u200Balice");
    expect(body).toContain("about #\u200B12");
    expect(body).toContain("acme/repo#\u200B12");
    expect(body).toContain("&lt;script&gt;");
    expect(body).not.toContain("<script>");
    expect(body).toContain("\\*\\*bold\\*\\* \\[link\\](x)");
    // Every line of the text is in the quote.
    const quote = body.split("\n\n").slice(1, -1);
    expect(quote.every((part) => part.split("\n").every((line) => line.startsWith(">")))).toBe(true);
  });

  it("a cleared text's comment says so", () => {
    expect(commentBody("", "", "2026-01-02T10:00:30Z")).toBe(
      "Platform note, changed 2026-01-02 10:00 UTC:\n\n_The analyst cleared the note._\n\n<!-- threatbridge:note= -->",
    );
  });

  it("what the issue last showed is the last comment carrying a hash line (a person's quote of the text carries none)", () => {
    expect(lastShown([{ body: `a\n\n${noteLine("h1")}` }, { body: "> a person's words" }])).toBe("h1");
    expect(lastShown([{ body: noteLine("h1") }, { body: noteLine("") }])).toBe("");
    expect(lastShown([{ body: "no line" }])).toBeUndefined();
  });
});

describe("the body an issue is made with", () => {
  it("shows the text under `### Platform note` before the footer, with its hash line; the core's hash is kept", () => {
    const base = {
      issue: {
        title: "t",
        body: `| Field | Value |\n\n---\n\n_This issue is managed by threatbridge and mirrors a threat on the security platform. Closing it sends a verdict on the threat to the platform; reopening it sends the threat back to unsolved._\n\n${markerFor(ID)}`,
        labels: [],
      },
      hash: "core",
    };
    const record = changeSlice(withIssue, (s) => ({ ...s, b: "Confirmed @alice." }));
    const out = renderBodyNote(record, ID, base);
    expect(out.hash).toBe("core");
    expect(out.issue.body).toContain(
      `| Field | Value |\n\n### Platform note\n\n> Confirmed @\u200Balice.\n\n${noteLine(textHash("Confirmed @alice."))}\n\n---\n\n_This issue`,
    );
    expect(renderBodyNote(withIssue, ID, base)).toBe(base);
  });

  it("stays within GitHub's body limit", () => {
    const body = `${"y".repeat(65_000)}\n\n${markerFor(ID)}`;
    const out = withBodyNote(body, "z".repeat(5_000), "h", markerFor(ID));
    expect(out.length).toBeLessThanOrEqual(65_536);
  });
});

describe("status: the analysts' notes waiting for their comment", () => {
  it("are counted by the slice's tag (and the line says so only when some wait)", () => {
    const due = changeSlice(withIssue, (s) => ({ ...s, w: sectionHash(SECTION), d: "h2" }));
    const text = due.slices?.["notes"] ?? "";
    expect(notesTagger.tag(text)).toBe(1 | 4);
    expect(notes.status?.line?.({ written: 3, absent: 0, commentsDue: 1 })).toContain(
      "1 analysts' notes wait for their comment on GitHub",
    );
    expect(notes.status?.line?.({ written: 3, absent: 0 })).not.toContain("analysts'");
  });
});
