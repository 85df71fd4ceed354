import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  compileTemplates,
  MAX_BODY_LENGTH,
  renderIssue,
  withLabels,
  type RenderOptions,
} from "../../../src/sync/render/index.js";
import { withRevision } from "../../../src/shared/index.js";
import { ASSET, OPTIONS, threat } from "./fixtures.js";

// The bidi controls text could spoof with: embeddings/overrides, isolates and the three marks.
const BIDI = [
  "\u202A",
  "\u202B",
  "\u202C",
  "\u202D",
  "\u202E",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u200E",
  "\u200F",
  "\u061C",
];
const BIDI_ANY = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

const spoofText = fc
  .array(
    fc.oneof(fc.constantFrom(...BIDI), fc.constantFrom("Invoice ", "gnp.exe", "a", "#1", "@x", "\n", " ")),
    {
      maxLength: 30,
    },
  )
  .map((parts) => parts.join(""));

const TEMPLATED: RenderOptions = {
  ...OPTIONS,
  templates: compileTemplates({
    title: "{{ threat.title }} {{ threat.severity }}",
    body: "Raw: {{ threat.description }}\n\u202Etemplate text\u202C\n{{ asset.name }}",
  }),
};

describe("text that spoofs is inert", () => {
  test("bidi controls U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C never reach a title, body or label", () => {
    fc.assert(
      fc.property(
        spoofText,
        spoofText,
        spoofText,
        spoofText,
        fc.boolean(),
        (title, description, severity, name, templated) => {
          const out = renderIssue(
            threat({ title, description, severity, module: severity }),
            { ...ASSET, name },
            templated ? TEMPLATED : OPTIONS,
          );
          expect(out.title).not.toMatch(BIDI_ANY);
          expect(out.body).not.toMatch(BIDI_ANY);
          // A new issue's labels, a route's label included.
          for (const label of withLabels(out.labels, [severity])) expect(label).not.toMatch(BIDI_ANY);
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
  });

  test("'Invoice \\u202Egnp.exe\\u202C' shows in stored order: the title reads 'Invoice gnp.exe'", () => {
    const out = renderIssue(threat({ title: "Invoice \u202Egnp.exe\u202C" }), ASSET, OPTIONS);
    expect(out.title).toContain("Invoice gnp.exe");
  });
});

describe("GitHub's body limit applies to what is sent", () => {
  test("the longest description, revision line included, is within 65,536 code units", () => {
    for (const description of [
      "a".repeat(200_000),
      "<&@#1\n".repeat(40_000),
      "\uD83D\uDEA8".repeat(70_000),
    ]) {
      for (const opts of [OPTIONS, TEMPLATED]) {
        const rendered = renderIssue(threat({ description }), ASSET, opts);
        // The longest revision line any hash could make.
        const sent = withRevision(rendered.body, "f".repeat(64));
        expect(sent.length).toBeLessThanOrEqual(MAX_BODY_LENGTH);
        // Still ours: the marker and the revision line survive the cut.
        expect(sent).toMatch(
          /<!-- threatbridge:threat=[0-9a-f-]{36} -->\n<!-- threatbridge:rev=[0-9a-f]{64} -->\n$/,
        );
      }
    }
  });
});
