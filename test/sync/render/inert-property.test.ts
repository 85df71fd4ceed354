import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  findMarkerIds,
  renderIssue,
  withLabels,
  type AssetView,
  type ThreatView,
} from "../../../src/sync/render/index.js";
import { OPTIONS, markerCount } from "./fixtures.js";

// Pieces that matter to Markdown, HTML, GitHub's linkers and the marker, combined at random.
const PIECES = [
  "@",
  "#",
  "1",
  "12",
  "a",
  "Z",
  "_",
  " ",
  "\n",
  "\r",
  "\r\n",
  "\t",
  "<",
  ">",
  "!--",
  "-->",
  "<!--",
  "threatbridge:threat=",
  "3f2b8c1e-5d4a-4e8b-9c7d-1a2b3c4d5e6f",
  "&",
  "&#64;",
  ";",
  "|",
  "`",
  "[",
  "]",
  "(",
  ")",
  "\\",
  "GH-",
  "://",
  "www.",
  "*",
  "~",
  "$",
  "-",
  "=",
  "\uD800",
  "\uDC00",
  "é",
  "🚨",
  "\u200B",
  "\u0000",
  ",",
];

const tricky = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(""));
const anyText = fc.oneof(tricky, fc.string({ unit: "binary", maxLength: 60 }), fc.string({ maxLength: 60 }));
// Now and then a long one, so that truncation is exercised too.
const text = fc.oneof(
  { weight: 6, arbitrary: anyText },
  { weight: 1, arbitrary: fc.tuple(tricky, fc.integer({ min: 1, max: 5_000 })).map(([s, n]) => s.repeat(n)) },
);
const nullable = fc.option(text, { nil: null });
const moduleData = fc.option(
  fc.dictionary(
    text,
    fc.oneof(
      text,
      fc.integer(),
      fc.constant(null),
      fc.array(text, { maxLength: 5 }),
      fc.dictionary(text, text, { maxKeys: 3 }),
    ),
    {
      maxKeys: 8,
    },
  ),
  { nil: null },
);

const threatArb: fc.Arbitrary<ThreatView> = fc.record({
  // The platform schema makes ids UUIDs; odd short ids still must not break the marker.
  id: fc.oneof(fc.uuid(), anyText),
  title: nullable,
  description: nullable,
  severity: nullable,
  severityRank: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  module: nullable,
  status: text,
  ageDays: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
  assetId: nullable,
  moduleData,
  updatedAt: text,
});
const assetArb: fc.Arbitrary<AssetView | null> = fc.option(
  fc.record({ id: text, name: nullable, type: nullable }),
  {
    nil: null,
  },
);

describe("contract: platform text is rendered inertly (property over arbitrary platform fields)", () => {
  test("one marker, no raw <, no live @mention or #reference, within GitHub's limits", () => {
    fc.assert(
      fc.property(
        threatArb,
        assetArb,
        fc.array(text, { maxLength: 4 }),
        text,
        (threat, asset, added, line) => {
          // A route's line and labels come from the YAML, and are rendered as inertly as platform text.
          const options = { ...OPTIONS, route: { rule: 0, line } };
          const issue = renderIssue(threat, asset, options);
          const { body, title } = issue;
          const labels = withLabels(issue.labels, added);
          expect(markerCount(body)).toBe(1);
          expect(findMarkerIds(body)).toHaveLength(1);
          if (/^[0-9a-f-]{36}$/.test(threat.id)) expect(findMarkerIds(body)).toEqual([threat.id]);
          expect(body.split("\n").at(-1)).toMatch(/^<!-- threatbridge:threat=[A-Za-z0-9%-]* -->$/);
          const withoutMarker = body.slice(0, body.lastIndexOf("<!-- threatbridge:threat="));
          expect(withoutMarker).not.toContain("<");
          expect(body).not.toMatch(/@\w/);
          expect(body).not.toMatch(/#\d/);
          expect(body.length).toBeLessThanOrEqual(65_536);
          expect(title.length).toBeLessThanOrEqual(256);
          expect(title).not.toMatch(/@\w|#\d|[\r\n]/);
          expect(title).not.toBe("");
          for (const label of labels) {
            expect(label.length).toBeLessThanOrEqual(50);
            expect(label).not.toMatch(/[,\r\n]/);
          }
          expect(renderIssue(threat, asset, options)).toEqual(issue);
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
  });
});
