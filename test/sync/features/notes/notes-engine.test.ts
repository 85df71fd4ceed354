import { describe, expect, it } from "vitest";
import type { GitHubConversation, RepoCommentSnapshot } from "../../../../src/github/index.js";
import { BEGIN, END, findSection } from "../../../../src/sync/features/notes/section.js";
import { notesOnIssue } from "../../../../src/sync/features/notes/intake.js";
import { persist } from "../../../../src/sync/context.js";
import { notesData, setNotesData, takePending } from "../../../../src/sync/features/notes/runtime.js";
import { compareIso } from "../../../../src/shared/iso-time.js";
import { readSlice } from "../../../../src/sync/features/notes/slice.js";
import { setMeta } from "../../../../src/sync/records/state-updates.js";
import { Harness, makeConfig, REPO, threatId } from "../../harness.js";
import { featureContext } from "../../../../src/sync/features/registry.js";

/**
 * The notes through the engine (contract, "The conversation back": notes), over the engine's
 * fakes: a person's comment → one note write keeping the analyst's text; the echo → 0 writes; a
 * crash at any platform call → at most one identical extra note; a lost state → 0 writes where the
 * note holds the section; a note absent on reads → no write, one log line.
 */

/** People's comments of each repository, as `listRepoComments` answers them; counts the listings. */
class FakeConversation {
  readonly comments: RepoCommentSnapshot[] = [];
  readonly listings: Array<{ repo: string; since: string | null }> = [];
  private id = 1000;

  add(number: number, author: string, body: string, authorType = "User"): void {
    this.addAt(number, author, body, new Date(Date.now() + this.id + 1).toISOString(), authorType);
  }

  /** A comment created and last updated at `at`, as written (GitHub writes whole seconds). */
  addAt(number: number, author: string, body: string, at: string, authorType = "User"): void {
    this.id += 1;
    this.comments.push({
      id: this.id,
      repo: REPO,
      issueNumber: number,
      body,
      author,
      authorType,
      viaApp: null,
      createdAt: at,
      updatedAt: at,
    });
  }

  async listRepoComments(repo: string, since: string | null) {
    this.listings.push({ repo, since });
    // GitHub's `since` names an instant: the comments updated at or after it, whatever the text.
    const comments = this.comments.filter(
      (c) => c.repo === repo && (since === null || compareIso(c.updatedAt, since) >= 0),
    );
    return { notModified: false, comments };
  }
}

const ANALYST = "Analyst: asked Bob to patch.\r\nSecond line kept.";
const T1 = threatId(1);

function setUp(extraConfig: Record<string, unknown> = {}): { h: Harness; conv: FakeConversation } {
  const h = new Harness(makeConfig({ notes: { comments: 3 }, ...extraConfig }));
  const conv = new FakeConversation();
  const attach = (): void => {
    h.ctx.conversation = conv as unknown as GitHubConversation;
  };
  attach();
  const restart = h.restart.bind(h);
  h.restart = () => {
    restart();
    attach();
  };
  return { h, conv };
}

function noteOf(h: Harness, id = T1): string {
  return String(h.platform.threats.get(id)?.["note"] ?? "");
}

async function withIssue(): Promise<{ h: Harness; conv: FakeConversation; number: number }> {
  const { h, conv } = setUp();
  h.platform.put({ id: T1, note: ANALYST });
  await h.settle();
  const number = h.issueFor(T1)[0]?.number ?? 0;
  return { h, conv, number };
}

describe("notes through the engine", () => {
  it("writes the section once after the issue is made, keeping the analyst's note before it", async () => {
    const { h } = await withIssue();
    expect(h.platform.notesSent).toHaveLength(1);
    const note = noteOf(h);
    expect(note.startsWith(`${ANALYST}\r\n\r\n${BEGIN}\n`)).toBe(true);
    expect(note).toContain(`Issue: ${REPO}#`);
    expect(note.endsWith(END)).toBe(true);
    expect(h.events.filter((e) => e.type === "feature_written")).toHaveLength(1);
  });

  it("the echo (the platform re-delivers the threat after the write) costs 0 writes, and so does idle", async () => {
    const { h } = await withIssue();
    const writes = h.platform.writes + h.github.writes;
    await h.cycle();
    await h.cycle();
    expect(h.platform.notesSent).toHaveLength(1);
    expect(h.platform.writes + h.github.writes).toBe(writes);
  });

  it("a process whose listings hold no comment never asks GitHub who the connector is (one read fewer per idle start)", async () => {
    const { h, conv, number } = await withIssue();
    h.restart();
    let asked = 0;
    const whoAmI = h.github.whoAmI.bind(h.github);
    h.github.whoAmI = () => {
      asked += 1;
      return whoAmI();
    };
    await h.cycle();
    expect(asked).toBe(0);
    // A person's comment: now the connector's own are told apart from people's.
    conv.add(number, "alice", "Patched.");
    await h.settle();
    expect(asked).toBe(1);
    expect(noteOf(h)).toContain("Patched.");
  });

  it("a person's comment → one note write with it, bots' and the connector's own left out, the analyst's text kept; one listing per repository per cycle", async () => {
    const { h, conv, number } = await withIssue();
    // The analyst edits the note between cycles: the write reads it fresh and keeps the edit.
    h.platform.put({ id: T1, note: noteOf(h).replace("Second line kept.", "Second line edited.") });
    conv.add(number, "alice", "Patched on all hosts.");
    conv.add(number, "dependabot[bot]", "Bump", "Bot");
    conv.add(number, "threatbridge[bot]", "Closed\n<!-- threatbridge:comment=i7 -->", "User");
    conv.add(number, "someone", "mine <!-- threatbridge:comment=i9 -->");
    const listingsBefore = conv.listings.length;
    await h.cycle();
    expect(conv.listings.length - listingsBefore).toBe(1);
    expect(h.platform.notesSent).toHaveLength(2);
    const note = noteOf(h);
    expect(note).toContain("Second line edited.");
    expect(note.startsWith("Analyst: asked Bob to patch.\r\n")).toBe(true);
    const section = findSection(note)?.text ?? "";
    expect(section).toContain("alice at ");
    expect(section).toContain("Patched on all hosts.");
    expect(section).not.toContain("Bump");
    expect(section).not.toContain("Closed");
    expect(section).not.toContain("mine");
    // The next cycle lists from the watermark and writes nothing.
    await h.cycle();
    expect(h.platform.notesSent).toHaveLength(2);
    expect(conv.listings.at(-1)?.since).not.toBeNull();
  });

  it("the listing's watermark follows the comments by instant, not text: after a watermark in whole seconds (…:05Z), a comment at …:05.500Z moves it on, so the next listing does not return that comment again", async () => {
    const { h, conv, number } = await withIssue();
    const whole = new Date(Math.ceil((Date.now() + 60_000) / 1000) * 1000)
      .toISOString()
      .replace(".000Z", "Z");
    const later = whole.replace("Z", ".500Z");
    setNotesData(featureContext(h.ctx), { ...notesData(featureContext(h.ctx)), since: { [REPO]: whole } });
    conv.addAt(number, "alice", "Patched.", later);
    await h.cycle();
    expect(noteOf(h)).toContain("Patched.");
    expect(notesData(featureContext(h.ctx)).since[REPO]).toBe(later);
    await h.cycle();
    expect(conv.listings.at(-1)?.since).toBe(later);
  });

  it("a crash at any platform call of the write's cycle sends at most one identical extra note and never loses the analyst's text", async () => {
    for (const after of [false, true]) {
      for (let call = 1; call <= 8; call += 1) {
        const { h, conv, number } = await withIssue();
        conv.add(number, "alice", `Fixed (${call}, ${after}).`);
        const sentBefore = h.platform.notesSent.length;
        h.crashAt("platform", call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        const sent = h.platform.notesSent.slice(sentBefore).map((n) => n.note);
        expect(sent.length, `call ${call}, after ${after}`).toBeGreaterThanOrEqual(1);
        expect(sent.length, `call ${call}, after ${after}`).toBeLessThanOrEqual(2);
        expect(new Set(sent).size).toBe(1);
        expect(noteOf(h)).toContain("Analyst: asked Bob to patch.\r\nSecond line kept.");
        expect(noteOf(h)).toContain(`Fixed (${call}, ${after}).`);
        expect(Object.keys(h.ctx.state.intents)).toHaveLength(0);
      }
    }
  });

  it("a threat waiting for the next listing survives a crash: its slice's flag is read back", async () => {
    const { h, number } = await withIssue();
    // A person assigns bob (the change poll's snapshot); the note waits for the next listing.
    notesOnIssue(featureContext(h.ctx), T1, {
      repo: REPO,
      number,
      id: null,
      url: `https://github.com/${REPO}/issues/${number}`,
      state: "open",
      stateReason: null,
      title: "t",
      body: "",
      labels: [],
      assignees: ["bob"],
      updatedAt: new Date().toISOString(),
      threatId: T1,
    });
    await persist(h.ctx);
    h.restart();
    // The next listing (the first of this process) finds it by its flag and queues it.
    expect(takePending(featureContext(h.ctx))).toEqual([T1]);
    expect(readSlice(h.ctx.state.threats.get(T1)).p).toBeUndefined();
    expect(readSlice(h.ctx.state.threats.get(T1)).a).toEqual(["bob"]);
  });

  it("a state whose slices hold no pending flag says so: the next process reads no slice for flags (an idle start's scan of every threat)", async () => {
    const { h } = await withIssue();
    await h.cycle();
    expect(h.ctx.state.features?.["notes"]).toMatchObject({ pending: false });
    // An idle cycle commits nothing (the mark is written only when it changes).
    const commits = h.commits.length;
    await h.cycle();
    expect(h.commits).toHaveLength(commits);
    h.restart();
    const threats = h.ctx.state.threats;
    let scans = 0;
    const scanSlices = threats.scanSlices.bind(threats);
    threats.scanSlices = (feature, visit) => {
      scans += 1;
      scanSlices(feature, visit);
    };
    expect(takePending(featureContext(h.ctx))).toEqual([]);
    expect(scans).toBe(0);
    // A state written before the mark was kept (no `pending`): its slices are read, once.
    setMeta(h.ctx, "features", { notes: { since: {} } });
    await persist(h.ctx);
    h.restart();
    const again = h.ctx.state.threats;
    const scanAgain = again.scanSlices.bind(again);
    again.scanSlices = (feature, visit) => {
      scans += 1;
      scanAgain(feature, visit);
    };
    expect(takePending(featureContext(h.ctx))).toEqual([]);
    expect(scans).toBe(1);
  });

  it("after a lost state, the section read from the note says what was written: 0 writes when it matches", async () => {
    const { h, conv, number } = await withIssue();
    conv.add(number, "alice", "Patched.");
    await h.cycle();
    expect(h.platform.notesSent).toHaveLength(2);
    h.disk = null;
    h.restart();
    await h.settle();
    await h.cycle();
    expect(h.platform.notesSent).toHaveLength(2);
  });

  it("fields.threat.note absent on reads: no write, said once in the log", async () => {
    const h = new Harness(makeConfig({ notes: { comments: 0 }, fields: { threat: { note: "meta.note" } } }));
    const lines: string[] = [];
    const logger = h.ctx.logger;
    h.ctx.logger = new Proxy(logger, {
      get: (target, key) =>
        key === "warn"
          ? (_fields: object, message: string) => lines.push(message)
          : Reflect.get(target, key, target),
    });
    h.platform.put({ id: T1 });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    expect(h.issues()).toHaveLength(2);
    expect(h.platform.notesSent).toHaveLength(0);
    expect(lines.filter((l) => l.includes("fields.threat.note"))).toHaveLength(1);
  });
});
