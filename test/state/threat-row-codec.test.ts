import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packThreatRow, unpackThreatRow } from "../../src/state/threat-row-codec.js";
import type { Json } from "../../src/state/index.js";

/**
 * A threat row is stored without what its issue already says (src/state/threat-row-codec.ts): the
 * platform link `<repo>#<number>` and the issue URL's `/<repo>/issues/<number>`. Every row reads
 * back as it was written, byte for byte, whatever its shape.
 */

const row = (link: string | undefined, url: string): Json => ({
  status: "unsolved",
  severity: 3,
  assetId: "a1",
  updatedAt: "2026-01-01T00:00:00.000Z",
  issue: { repo: "acme/sec", number: 7, url, state: "open", hash: "h" },
  ...(link === undefined ? {} : { link }),
});

describe("a threat row without what its issue says", () => {
  it("the link <repo>#<number> and the URL <base>/<repo>/issues/<number> are stored as markers and read back as they were", () => {
    const written = row("acme/sec#7", "https://github.com/acme/sec/issues/7");
    const stored = packThreatRow(written);
    expect(stored).toEqual({
      ...(written as object),
      link: 0,
      issue: { repo: "acme/sec", number: 7, url: ["https://github.com"], state: "open", hash: "h" },
    });
    expect(JSON.stringify(stored).length).toBeLessThan(JSON.stringify(written).length - 25);
    expect(JSON.stringify(unpackThreatRow(stored))).toBe(JSON.stringify(written));
  });

  it("a link or URL that the issue does not give (another issue, another form) is stored as it is", () => {
    for (const written of [
      row("acme/sec#8", "https://github.com/acme/sec/issues/8"),
      row("Acme/Sec#7", "https://github.com/Acme/Sec/issues/7"),
      row(undefined, "https://github.com/acme/sec/pull/7"),
    ]) {
      const stored = packThreatRow(written) as { link?: Json; issue: { url: Json } };
      expect(typeof stored.issue.url).toBe("string");
      expect(stored.link === undefined || typeof stored.link === "string").toBe(true);
      expect(JSON.stringify(unpackThreatRow(stored as Json))).toBe(JSON.stringify(written));
    }
  });

  it("any JSON value reads back byte for byte as written (property)", () => {
    const repo = fc.constantFrom("acme/sec", "a/b", "");
    const value = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          issue: fc.record(
            {
              repo,
              number: fc.integer({ min: 0, max: 99 }),
              url: fc.oneof(
                fc.string(),
                repo.map((r) => `https://x/${r}/issues/1`),
              ),
            },
            { requiredKeys: [] },
          ),
          link: fc.oneof(
            fc.string(),
            repo.map((r) => `${r}#1`),
          ),
          other: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(value, (v) => {
        const written = JSON.parse(JSON.stringify(v)) as Json;
        expect(JSON.stringify(unpackThreatRow(packThreatRow(written)))).toBe(JSON.stringify(written));
      }),
      { numRuns: 500 },
    );
  });
});
