import { describe, expect, it } from "vitest";
import { renderIssue, type AssetView, type RelatedView } from "../../../src/sync/render/index.js";
import { createRenderer } from "../../../src/sync/render/renderer.js";
import { RELATED_HEADING } from "../../../src/sync/render/related-section.js";
import { makeConfig, REPO } from "../harness.js";
import { ASSET, OPTIONS, threat } from "./fixtures.js";

/**
 * Contract, "The conversation back" → "Related assets": the body lists up to N assets related to
 * the threat's asset (name, type, id; "and N more"), templates get `related`, and the list is
 * platform text rendered inertly. The list is not part of the hash: a neighbourhood that changed
 * alone rewrites no issue.
 */

function neighbour(n: number, fields: Partial<AssetView> = {}): AssetView {
  return {
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
    name: `host-${n}.example.com`,
    type: "domain",
    ...fields,
  };
}

function body(related: RelatedView | null | undefined): string {
  return renderIssue(threat(), ASSET, { ...OPTIONS, related }).body;
}

function section(text: string): string {
  const start = text.indexOf(RELATED_HEADING);
  expect(start).toBeGreaterThanOrEqual(0);
  // The section ends where the platform link (then the footer) begins.
  return text.slice(start, text.indexOf("\n\n[Open this threat", start));
}

describe("related assets in the issue body", () => {
  it("no list at hand (off, not read, or the walk failed): no section at all", () => {
    expect(body(undefined)).not.toContain(RELATED_HEADING);
    expect(body(null)).not.toContain(RELATED_HEADING);
  });

  it("an asset with no relations (or gone: 404) lists none, and says so", () => {
    expect(section(body({ assets: [], more: 0 }))).toBe(`${RELATED_HEADING}\n\n_No related assets._`);
  });

  it("some related assets: one line each with name, type and id, in the walk's order", () => {
    const text = section(body({ assets: [neighbour(1), neighbour(2, { name: null, type: null })], more: 0 }));
    expect(text.split("\n").slice(2)).toEqual([
      `- host-1.example.com (domain), ${neighbour(1).id}`,
      `- ${neighbour(2).id}`,
    ]);
    expect(text).not.toContain("more");
  });

  it('more than N: the first N are listed, then "and N more"', () => {
    const assets = Array.from({ length: 10 }, (_, i) => neighbour(i + 1));
    const text = section(body({ assets, more: 7 }));
    expect(text.match(/^- /gm)).toHaveLength(10);
    expect(text.endsWith("and 7 more")).toBe(true);
  });

  it("names and types are platform text: no @mention, no #123 cross-link, no HTML, no Markdown link", () => {
    const hostile = neighbour(3, {
      name: "@admin <img src=x onerror=alert(1)> see #123 [x](https://evil.example)",
      type: "owner/repo#45 `code`",
    });
    const text = section(body({ assets: [hostile], more: 0 }));
    expect(text).not.toMatch(/@(?!\u200B)/);
    expect(text).not.toMatch(/#(?!\u200B)\d/);
    expect(text).not.toContain("<img");
    expect(text).toContain("&lt;img");
    expect(text).not.toMatch(/(?<!\\)\[x\]/);
    expect(text).not.toMatch(/(?<!\\)`/);
    // One list line: a name cannot start a heading or a second item.
    expect(text.split("\n").filter((line) => line.startsWith("- "))).toHaveLength(1);
  });

  it('a huge neighbourhood stays a bounded part of the body, the rest counted in "and N more"', () => {
    const assets = Array.from({ length: 100 }, (_, i) => neighbour(i + 1, { name: "n".repeat(500) }));
    const text = section(body({ assets, more: 5 }));
    expect(text.length).toBeLessThan(9_000);
    const listed = text.match(/^- /gm)?.length ?? 0;
    expect(listed).toBeLessThan(100);
    expect(text.endsWith(`and ${String(100 - listed + 5)} more`)).toBe(true);
  });
});

describe("related assets for templates", () => {
  it("templates get `related` (id, name, type, escaped) and `related_more`", () => {
    const renderer = createRenderer(
      makeConfig({
        render: { related_assets: 5 },
        templates: {
          body: "{% for a in related %}* {{ a.name }} / {{ a.type }} / {{ a.id }}\n{% endfor %}+{{ related_more }}",
          title: "{{ threat.title }} ({{ related.size }} related)",
        },
      }),
      undefined,
      { peek: () => ({ assets: [neighbour(1), neighbour(2, { name: "@ops #7" })], more: 3 }) },
    );
    const issue = renderer.render(threat(), ASSET, { repo: REPO, labels: [], assignees: [] }).issue;
    expect(issue.title).toBe("Outdated TLS configuration (2 related)");
    expect(issue.body).toContain(`* host-1.example.com / domain / ${neighbour(1).id}`);
    expect(issue.body).toContain("* @\u200Bops #\u200B7 / domain");
    expect(issue.body).toContain("+3");
  });

  it("without a list templates see an empty `related` and `related_more` 0", () => {
    const renderer = createRenderer(
      makeConfig({ templates: { body: "[{{ related.size }}|{{ related_more }}]" } }),
    );
    const issue = renderer.render(threat(), ASSET, { repo: REPO, labels: [], assignees: [] }).issue;
    expect(issue.body.startsWith("[0|0]")).toBe(true);
  });
});

describe("related assets and the update decision (hash)", () => {
  const route = { repo: REPO, labels: [], assignees: [] };

  it("the list is not in the hash: a neighbourhood that changed alone rewrites no issue", () => {
    let list: RelatedView = { assets: [neighbour(1)], more: 0 };
    const renderer = createRenderer(makeConfig({ render: { related_assets: 10 } }), undefined, {
      peek: () => list,
    });
    const before = renderer.render(threat(), ASSET, route);
    expect(before.issue.body).toContain("host-1.example.com");
    list = { assets: [neighbour(2)], more: 0 };
    const after = renderer.render(threat(), ASSET, route);
    expect(after.hash).toBe(before.hash);
    // Written for another reason, the body shows the current list.
    expect(after.issue.body).toContain("host-2.example.com");
  });

  it("switching the list on (or changing N) changes every hash once; off, the hash is as before", () => {
    const off = createRenderer(makeConfig()).render(threat(), ASSET, route).hash;
    expect(
      createRenderer(makeConfig({ render: { related_assets: 0 } })).render(threat(), ASSET, route).hash,
    ).toBe(off);
    const ten = createRenderer(makeConfig({ render: { related_assets: 10 } })).render(
      threat(),
      ASSET,
      route,
    ).hash;
    const five = createRenderer(makeConfig({ render: { related_assets: 5 } })).render(
      threat(),
      ASSET,
      route,
    ).hash;
    expect(new Set([off, ten, five]).size).toBe(3);
  });
});
