import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../../../src/config/index.js";
import type { Threat } from "../../../../src/platform/index.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import type { SendIo } from "../../../../src/sync/actions/types.js";
import { notes } from "../../../../src/sync/features/notes/index.js";
import { noteDue } from "../../../../src/sync/features/notes/plan.js";
import { BEGIN } from "../../../../src/sync/features/notes/section.js";
import { readSlice } from "../../../../src/sync/features/notes/slice.js";
import { noteWriteAction } from "../../../../src/sync/features/notes/write-action.js";
import { ThreatRecordsView } from "../../../../src/sync/records/threat-records.js";

const ID = "00000000-0000-4000-8000-000000000001";
const record: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: "a",
  updatedAt: "2026-01-01T00:00:00Z",
  issue: { repo: "acme/t", number: 7, url: "https://github.com/acme/t/issues/7", state: "open", hash: "h" },
};
const action = noteDue(ConfigSchema.shape.notes.parse({})!, "note", ID, record)!;

/** A platform that holds one threat's note and records the notes sent. */
function io(note: unknown, opts: { gone?: boolean; notFoundOnWrite?: boolean } = {}) {
  const sent: string[] = [];
  const threat = { id: ID, status: "unsolved", updated_at: "x", ...(note === undefined ? {} : { note }) };
  const platform = {
    getThreat: async () => (opts.gone ? null : (threat as unknown as Threat)),
    updateNote: async (_id: string, text: string) => {
      if (opts.notFoundOnWrite) throw Object.assign(new Error("404"), { status: 404 });
      sent.push(text);
    },
  };
  return { sent, io: { platform } as unknown as SendIo };
}

describe("the note write (spec, POST /v1/threats/{id}/update-note)", () => {
  it("reads the threat fresh, keeps the analyst's text, writes once; the audit action is note", async () => {
    const { sent, io: sendIo } = io("Call Bob.");
    const answer = await noteWriteAction.send(action, sendIo, null);
    expect(sent).toEqual([`Call Bob.\n\n${action.section}`]);
    const settled = noteWriteAction.settle(action, answer);
    expect(settled.events).toEqual([
      {
        type: "feature_written",
        threatId: ID,
        issue: { repo: "acme/t", number: 7 },
        action: "note",
        detail: action.hash,
      },
    ]);
    expect(readSlice(settled.record?.(record)).w).toBe(action.hash);
    expect(noteWriteAction.describe(action).action).toBe("note");
    expect(noteWriteAction.intent?.(action)?.fields).toMatchObject({
      kind: "feature",
      feature: "notes",
      data: action.hash,
    });
  });

  it("a note that holds the section already is not written (a lost state, a lost answer)", async () => {
    const { sent, io: sendIo } = io(`Call Bob.\n\n${action.section}`);
    const answer = await noteWriteAction.send(action, sendIo, null);
    expect(sent).toEqual([]);
    expect(noteWriteAction.settle(action, answer).events).toEqual([]);
  });

  it("404 on the read or the write ends it: the threat is gone (update-note rule 5)", async () => {
    for (const opts of [{ gone: true }, { notFoundOnWrite: true }]) {
      const { io: sendIo } = io("x", opts);
      const settled = noteWriteAction.settle(action, await noteWriteAction.send(action, sendIo, null));
      expect(settled.record?.(record).gone).toBe(true);
      expect(settled.events).toEqual([]);
    }
  });

  it("no note at fields.threat.note on the read: nothing sent, said once", async () => {
    const { sent, io: sendIo } = io(undefined);
    const settled = noteWriteAction.settle(action, await noteWriteAction.send(action, sendIo, null));
    expect(sent).toEqual([]);
    expect(settled.notice?.once).toBe("notes:absent");
    expect(readSlice(settled.record?.(record)).n).toBe(1);
  });
});

describe("notes' check and status", () => {
  const config = ConfigSchema.parse({
    platform: {
      base_url: "http://127.0.0.1:1",
      token_url: "http://127.0.0.1:1/t",
      client_id: "i",
      client_secret: "s",
    },
    github: { token: "t", repository: "acme/t" },
    notes: {},
  });
  const stream = (items: object[]) => ({
    streamThreats: async function* () {
      yield {
        items: items.map((value) => ({ ok: true as const, value: value as Threat })),
        nextCursor: null,
        resumeCursor: null,
      };
    },
  });

  it("check passes when reads carry a note, warns when they carry none", async () => {
    const pass = await notes.check?.(config, { platform: stream([{ id: ID, note: "" }]) });
    expect(pass?.[0]?.status).toBe("pass");
    const warn = await notes.check?.(config, { platform: stream([{ id: ID }]) });
    expect(warn?.[0]?.status).toBe("warn");
    expect(warn?.[0]?.detail).toContain("fields.threat.note");
  });

  it("status counts the notes holding the section", () => {
    const threats = ThreatRecordsView.of({
      [ID]: { ...record, slices: { notes: JSON.stringify({ w: "abc" }) } },
    });
    const counts = notes.status?.counts?.(threats, 0) ?? {};
    expect(counts).toEqual({ written: 1, absent: 0 });
    expect(notes.status?.line?.(counts)).toContain("1 threats' notes hold the GitHub section");
    expect(BEGIN).toBe("--- threatbridge: GitHub ---");
  });
});
