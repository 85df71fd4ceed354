import { describe, expect, it } from "vitest";
import {
  commentKey,
  commentKeyed,
  groupMarkerFor,
  hasGroupMarker,
  isGroupIssue,
  hasMarker,
  markerFor,
  parseMarkerFound,
  OWN_LINES,
  parseCommentKeys,
  parseGroupMarker,
  parseMarker,
  parseRevision,
  REVISION_LINE_RESERVE,
  withRevision,
} from "../../src/shared/index.js";

// Issues already on GitHub carry these bytes: a changed writer would strand them.
const THREAT = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";
const HASH = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

describe("hidden body lines (contract, Conventions on GitHub)", () => {
  it("writes the marker, revision line and comment key byte for byte as issues on GitHub carry them", () => {
    expect(markerFor(THREAT)).toBe("<!-- threatbridge:threat=3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b -->");
    expect(withRevision("body\n\n", "abcd1234")).toBe("body\n<!-- threatbridge:rev=abcd1234 -->\n");
    expect(commentKey("i42")).toBe("<!-- threatbridge:comment=i42 -->");
  });

  it("reads back what it writes: parse(write(x)) == x for each line", () => {
    for (const id of [
      THREAT,
      THREAT.toUpperCase(),
      "not-a-uuid",
      "a -->b",
      "x.y_z~!'()*",
      "é \uD83D\uDE00",
    ]) {
      expect(parseMarker(`text\n${markerFor(id)}\n`)).toBe(id);
    }
    for (const hash of ["abcd1234", HASH])
      expect(parseRevision(withRevision("## Title\n\ntext", hash))).toBe(hash);
    for (const intentId of ["i1", "i987654"]) {
      const comment = `Reopened.\n\n${commentKey(intentId)}`;
      expect(parseCommentKeys(comment)).toEqual([intentId]);
      expect(commentKeyed(comment, intentId)).toBe(true);
    }
  });

  it("an id that would end the comment early cannot fake a second marker", () => {
    const body = markerFor(`x --> <!-- threatbridge:threat=${THREAT}`);
    expect(body.match(OWN_LINES)).toHaveLength(1);
    expect(parseMarker(body)).not.toBe(THREAT);
  });

  it("the last revision line wins, since the connector appends its own after a person's text", () => {
    const body = withRevision(`quoted: ${withRevision("", "aaaaaaaa").trim()}\n`, "bbbbbbbb");
    expect(parseRevision(body)).toBe("bbbbbbbb");
  });

  it("the room reserved for the revision line is exactly what the longest one adds", () => {
    expect(withRevision("x", HASH).length - "x".length).toBe(REVISION_LINE_RESERVE);
  });

  it("every hidden line is one of the connector's own lines, in body order", () => {
    const body = `a ${markerFor(THREAT)} b ${commentKey("i7")}\n${withRevision("", "abcd1234")}`;
    expect(body.match(OWN_LINES)).toEqual([
      markerFor(THREAT),
      commentKey("i7"),
      "<!-- threatbridge:rev=abcd1234 -->",
    ]);
  });

  it("writes a group's marker as the contract says, its key percent-encoded so it cannot end the comment (contract, Groups)", () => {
    expect(groupMarkerFor("cve", "CVE-2021-44228")).toBe("<!-- threatbridge:group=cve:CVE-2021-44228 -->");
    expect(groupMarkerFor("title", "a --> b")).toBe("<!-- threatbridge:group=title:a%20--%3E%20b -->");
    const body = `checklist\n${groupMarkerFor("asset", "a1")}`;
    expect(hasGroupMarker(body, "asset", "a1")).toBe(true);
    expect(hasGroupMarker(body, "asset", "a2")).toBe(false);
    expect(isGroupIssue(body)).toBe(true);
    expect(isGroupIssue(markerFor("00000000-0000-4000-8000-000000000001"))).toBe(false);
    // A group marker is one of the connector's own lines: a listed issue keeps it.
    expect(body.match(OWN_LINES)).toEqual([groupMarkerFor("asset", "a1")]);
  });

  it("a later occurrence's marker (contract, Recurrence): its own bytes, read back, never taken for another occurrence", () => {
    expect(markerFor(THREAT, 2)).toBe(`<!-- threatbridge:threat=${THREAT} occurrence=2 -->`);
    // The first occurrence keeps the marker issues carried before recurrences existed.
    expect(markerFor(THREAT, 1)).toBe(markerFor(THREAT));
    expect(parseMarkerFound(`x\n${markerFor(THREAT, 12)}\n`)).toEqual({ threatId: THREAT, occurrence: 12 });
    expect(parseMarkerFound(markerFor(THREAT))).toEqual({ threatId: THREAT, occurrence: 1 });
    expect(parseMarker(markerFor(THREAT, 3))).toBe(THREAT);
    expect(hasMarker(markerFor(THREAT, 2), THREAT, 2)).toBe(true);
    expect(hasMarker(markerFor(THREAT, 2), THREAT)).toBe(false);
    expect(hasMarker(markerFor(THREAT), THREAT, 2)).toBe(false);
    expect(hasMarker(markerFor(THREAT, 21), THREAT, 2)).toBe(false);
    // Not a number, or zero: not one of our markers.
    expect(parseMarkerFound(`<!-- threatbridge:threat=${THREAT} occurrence=0 -->`)).toBeNull();
    expect(parseMarkerFound(`<!-- threatbridge:threat=${THREAT} occurrence=x -->`)).toBeNull();
  });

  it("reads a group's marker back to the group it was written for, whatever its key holds; anything else names no group", () => {
    for (const [by, key] of [
      ["cve", "CVE-2021-44228"],
      ["title", "a --> b: c"],
      ["module", "x:y:z"],
      ["asset", "00000000-0000-4000-8000-00000000a001"],
    ] as const) {
      expect(
        parseGroupMarker(`intro\n${groupMarkerFor(by, key)}\n<!-- threatbridge:rev=abcd1234 -->`),
      ).toEqual({
        by,
        key,
      });
    }
    expect(parseGroupMarker(markerFor("00000000-0000-4000-8000-000000000001"))).toBeNull();
    expect(parseGroupMarker("<!-- threatbridge:group=title:%E0%A4 -->")).toBeNull();
    expect(parseGroupMarker(null)).toBeNull();
  });
});
