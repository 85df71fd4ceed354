import { describe, expect, test } from "vitest";
import {
  compileTemplates,
  findMarkerIds,
  markerFor,
  renderIssue,
  TemplateError,
  type RenderOptions,
} from "../../../src/sync/render/index.js";
import { ASSET, OPTIONS, THREAT_ID, markerCount, threat } from "./fixtures.js";

const Z = "\u200B";

function withTemplates(t: { title?: string; body?: string }): RenderOptions {
  return { ...OPTIONS, templates: compileTemplates(t) };
}

function compileError(source: string): unknown {
  try {
    compileTemplates({ body: source });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("user templates (Liquid)", () => {
  test("a template using threat and asset fields renders, and the marker is appended", () => {
    const opts = withTemplates({
      title:
        "{{ threat.severity | upcase }}: {{ threat.title }} on {{ asset.name }} ({{ threat.age_days }}d)",
      body: [
        "Threat {{ threat.id }} is {{ threat.status }} in module {{ threat.module }}.",
        "{% for entry in threat.module_data %}- {{ entry[0] }} = {{ entry[1] }}",
        "{% endfor %}See {{ platform_url }}",
      ].join("\n"),
    });
    const issue = renderIssue(threat({ moduleData: { cve: "CVE-1", port: 443 } }), ASSET, opts);
    expect(issue.warnings).toEqual([]);
    expect(issue.title).toBe("HIGH: Outdated TLS configuration on shop.example.com (12d)");
    expect(issue.body).toBe(
      [
        `Threat ${THREAT_ID} is unsolved in module vulnerability.`,
        "- cve = CVE-1",
        "- port = 443",
        `See https://app.example.com/threats/${THREAT_ID}`,
        "",
        markerFor(THREAT_ID),
      ].join("\n"),
    );
  });

  test("platform_url is nil with no platform.ui_url (unset or empty): the template's own fallback shows", () => {
    const source = "{% if platform_url %}See {{ platform_url }}{% else %}No link{% endif %}";
    for (const platformUiUrl of [undefined, ""]) {
      const { platformUiUrl: _set, ...rest } = withTemplates({ body: source });
      const opts = platformUiUrl === undefined ? rest : { ...rest, platformUiUrl };
      const issue = renderIssue(threat(), ASSET, opts);
      expect(issue.body.startsWith("No link\n\n")).toBe(true);
    }
  });

  test("template values are pre-escaped: platform text stays inert inside a template", () => {
    const opts = withTemplates({
      title: "{{ threat.title }}",
      body: "{{ threat.title }}\n\n{{ threat.description }}",
    });
    const issue = renderIssue(
      threat({ title: "@octocat <b>#12</b>", description: "<script>x</script>\n[a](http://x)" }),
      ASSET,
      opts,
    );
    expect(issue.title).toBe(`@${Z}octocat <b>#${Z}12</b>`);
    expect(issue.body).toContain(`@${Z}octocat &lt;b&gt;#${Z}12&lt;/b&gt;`);
    expect(issue.body).toContain(`&lt;script&gt;x&lt;/script&gt;\\\n\\[a\\](http:${Z}//x)`);
  });

  test("the title template's output is one line, inert and at most 256 characters", () => {
    const opts = withTemplates({ title: "cc @security {% for i in (1..100) %}long-{% endfor %}\nsecond" });
    const issue = renderIssue(threat(), ASSET, opts);
    expect(issue.title.length).toBe(256);
    expect(issue.title.startsWith(`cc @${Z}security long-long-`)).toBe(true);
    expect(issue.title.endsWith("…")).toBe(true);
  });

  test("a marker written by the template is neutralized; the real one is added once", () => {
    const fake = "<!-- threatbridge:threat=00000000-0000-4000-8000-000000000000 -->";
    const issue = renderIssue(
      threat(),
      ASSET,
      withTemplates({ body: `Hello\n${fake}\n${markerFor(THREAT_ID)}` }),
    );
    expect(markerCount(issue.body)).toBe(1);
    expect(findMarkerIds(issue.body)).toEqual([THREAT_ID]);
    expect(issue.body.endsWith(`\n${markerFor(THREAT_ID)}`)).toBe(true);
  });

  test("a huge template body is cut with a note, never the marker", () => {
    const opts = withTemplates({
      body: '{% assign s = "0123456789" %}{% for i in (1..14) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    });
    const issue = renderIssue(threat(), ASSET, opts);
    expect(issue.body.length).toBeLessThanOrEqual(65_536);
    expect(issue.body).toContain("_(truncated)_");
    expect(issue.body.endsWith(`\n${markerFor(THREAT_ID)}`)).toBe(true);
  });

  test.each([
    ["{% include 'x' %}", "{% include 'x' %}"],
    ["{% render 'x' %}", "{% render 'x' %}"],
    ["{% render %}", "{% render %}"],
    ["{% layout 'x' %}", "{% layout 'x' %}"],
    ["{% liquid include 'x' %}", "{% liquid include 'x' %}"],
    ["{{ threat.title | no_such_filter }}", "{{ threat.title | no_such_filter }}"],
    ["{{ 'now' | date: '%Y' }}", "{{ 'now' | date: '%Y' }}"],
    ["{{ threat.title | url_decode }}", "{{ threat.title | url_decode }}"],
    ["{{ 5 | sample }}", "{{ 5 | sample }}"],
    ["{% if %}", "{% if %}"],
    ["a template over the parse limit", "x".repeat(100_001)],
  ])("%s fails at compile time with TemplateError (template_invalid)", (_name, source) => {
    const error = compileError(source);
    expect(error).toBeInstanceOf(TemplateError);
    expect(error).toMatchObject({ code: "template_invalid", part: "body" });
  });

  test.each([
    ["a huge range", "{% for i in (1..100000000) %}x{% endfor %}"],
    ["nested loops", "{% for i in (1..3000) %}{% for j in (1..3000) %}{{ j }}{% endfor %}{% endfor %}"],
    [
      "loops over existing data (no allocation)",
      "{% for a in threat.module_data.xs %}{% for b in threat.module_data.xs %}{% for c in threat.module_data.xs %}.{% endfor %}{% endfor %}{% endfor %}",
    ],
  ])("%s hits a limit: the default body is used, with a warning", (_name, source) => {
    const opts = withTemplates({ body: source });
    const big = threat({ moduleData: { xs: Array.from({ length: 100 }, (_, i) => i) } });
    const issue = renderIssue(big, ASSET, opts);
    expect(issue.body).toBe(renderIssue(big, ASSET, OPTIONS).body);
    expect(issue.warnings).toHaveLength(1);
    expect(issue.warnings[0]).toMatchObject({ code: "template_render_failed", part: "body" });
    expect(issue.warnings[0]?.message).toMatch(/limit exceeded/);
  });

  test("a compile error names the part it comes from", () => {
    expect(() => compileTemplates({ title: "{% include 'x' %}", body: "ok" })).toThrow(
      expect.objectContaining({ code: "template_invalid", part: "title" }),
    );
  });

  test("a title template that renders nothing falls back to the default title, with a warning", () => {
    const issue = renderIssue(
      threat({ module: null }),
      ASSET,
      withTemplates({ title: "{{ threat.module }}" }),
    );
    expect(issue.title).toBe("[High] Outdated TLS configuration — shop.example.com");
    expect(issue.warnings).toMatchObject([{ code: "template_empty_output", part: "title" }]);
  });

  test("only own properties are visible to templates", () => {
    const opts = withTemplates({
      body: "[{{ threat.constructor }}{{ threat.__proto__ }}{{ asset.toString }}{{ threat.title.constructor }}]",
    });
    expect(renderIssue(threat(), ASSET, opts).body.startsWith("[]")).toBe(true);
  });

  test("a missing asset renders as empty values, not an error", () => {
    const opts = withTemplates({ body: "asset: '{{ asset.name }}'" });
    const issue = renderIssue(threat(), null, opts);
    expect(issue.warnings).toEqual([]);
    expect(issue.body.startsWith("asset: ''")).toBe(true);
  });
});
