import { describe, expect, it } from "vitest";
import { hasMarker, parseMarker } from "../../src/github/index.js";
import { findMarkerIds, markerFor, renderIssue } from "../../src/sync/render/index.js";

const ID = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";

describe("issue marker (contract: every issue carries <!-- threatbridge:threat=<uuid> -->)", () => {
  it("is spelled exactly as the contract says", () => {
    expect(markerFor(ID)).toBe(`<!-- threatbridge:threat=${ID} -->`);
  });

  it("is found anywhere in a body and round-trips", () => {
    expect(parseMarker(`## Title\n\ntext\n\n${markerFor(ID)}\n`)).toBe(ID);
    expect(parseMarker(markerFor(ID.toUpperCase()))).toBe(ID.toUpperCase());
    expect(hasMarker(markerFor(ID.toUpperCase()), ID)).toBe(true);
    expect(hasMarker(`x ${markerFor(ID)}`, ID.toUpperCase())).toBe(true);
  });

  it("is not found in bodies without it, or with a near miss", () => {
    for (const body of [
      null,
      undefined,
      "",
      "no marker",
      `<!-- threatbridge:threat=${ID}-->`,
      "<!-- threatbridge:threat=a b -->",
      "<!-- threatbridge:threat= -->",
      `<!--threatbridge:threat=${ID} -->`,
    ]) {
      expect(parseMarker(body)).toBeNull();
    }
  });

  it("is one grammar: what the renderer writes, the GitHub side reads, odd ids included", () => {
    for (const id of [ID, "not-a-uuid", "x --> <!-- threatbridge:threat=evil", "a b/c%"]) {
      expect(parseMarker(markerFor(id))).toBe(id);
      expect(findMarkerIds(markerFor(id))).toEqual([id]);
    }
    const body = renderIssue(
      {
        id: "odd id -->",
        title: "t",
        description: "d",
        severity: "high",
        severityRank: 3,
        module: "m",
        status: "unsolved",
        ageDays: null,
        assetId: null,
        moduleData: null,
        updatedAt: "2026-01-01T00:00:00Z",
      },
      null,
      { managedLabel: "threatbridge" },
    ).body;
    expect(parseMarker(body)).toBe("odd id -->");
  });

  it("takes the first marker when a body holds two", () => {
    const other = "00000000-0000-4000-8000-000000000000";
    expect(parseMarker(`${markerFor(ID)} ${markerFor(other)}`)).toBe(ID);
  });
});
