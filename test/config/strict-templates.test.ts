import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { checkTemplate, TemplateError } from "../../src/config/templates.js";
import type { TemplateKind } from "../../src/config/template-scopes.js";
import { DEFAULT_ACCEPTANCE_NOTE, DEFAULT_GROUP_TITLE } from "../../src/config/index.js";
import { ENV, errorOf, minimalPlus, parse } from "./helpers.js";

/**
 * Contract, "Templates": every liquid value in the config is checked before any network call; a
 * variable or filter that does not exist for that template is a config error (file, line, key,
 * and a "did you mean" where one fits).
 */

function problemOf(kind: TemplateKind, source: string): string {
  try {
    checkTemplate(kind, source);
  } catch (error) {
    if (error instanceof TemplateError) return error.message;
    throw error;
  }
  throw new Error(`${source} passed`);
}

describe("strict templates: variables", () => {
  it("a typo in a threat field is an error that suggests the field", () => {
    const message = problemOf("issue_title", "[{{ threat.severity }}] {{ threat.titel }}");
    expect(message).toMatch(/unknown variable `threat\.titel`/);
    expect(message).toMatch(/did you mean `threat\.title`\?/);
    expect(message).toMatch(/line 1, column 28/);
  });

  it("the platform's name of a field suggests the name the template sees", () => {
    expect(problemOf("issue_title", "{{ threat.name }}")).toMatch(/did you mean `threat\.title`/);
  });

  it("the body sees the related walk's list (render.related_assets): related and related_more", () => {
    expect(() =>
      checkTemplate(
        "issue_body",
        "{% for a in related %}- {{ a.name }} ({{ a.type }}){% endfor %} +{{ related_more }}",
      ),
    ).not.toThrow();
    expect(() => checkTemplate("issue_body", "{{ related[0].id }}")).not.toThrow();
    expect(problemOf("issue_body", "{{ relatd }}")).toMatch(/did you mean `related`\?/);
  });

  it("a typo in a status note's variable suggests the note's own variable", () => {
    const message = problemOf("acceptance_note", "Accepted on GitHub ({{ isue }}) until {{ until }}.");
    expect(message).toMatch(/unknown variable `isue`.*did you mean `issue`\?/);
  });

  it("a verdict note has no `until`: only the acceptance note does", () => {
    expect(problemOf("verdict_note", "Closed until {{ until }}")).toMatch(/unknown variable `until`/);
    expect(() => checkTemplate("acceptance_note", "until {{ until }}")).not.toThrow();
  });

  it("a variable in a branch or loop that a render would skip is checked too", () => {
    expect(problemOf("issue_body", "{% if false %}{{ asset.nmae }}{% endif %}")).toMatch(
      /`asset\.nmae`.*did you mean `asset\.name`/,
    );
    expect(problemOf("group_title", "{% for i in (1..2) %}{{ group.totl }}{% endfor %}")).toMatch(
      /did you mean `group\.total`/,
    );
  });

  it("a top-level name that lives one level down suggests its full path", () => {
    expect(problemOf("issue_title", "{{ title }}")).toMatch(/did you mean `threat\.title`/);
  });

  it("a property of a plain value is an error; liquid's size, first and last are not", () => {
    expect(problemOf("issue_title", "{{ threat.title.text }}")).toMatch(/`threat\.title` is a plain value/);
    expect(() =>
      checkTemplate("issue_title", "{{ threat.title.size }} {{ threat.title | size }}"),
    ).not.toThrow();
  });

  it("module_data is the platform's JSON: any path below it is accepted", () => {
    expect(() =>
      checkTemplate(
        "issue_body",
        "{{ threat.module_data.cve.id }} {% for r in threat.module_data.refs %}{{ r.url }}{% endfor %}",
      ),
    ).not.toThrow();
  });

  it("names the template defines itself are not scope variables", () => {
    const source =
      "{% assign t = threat.title | upcase %}{% capture c %}{{ t }}{% endcapture %}{{ c }}{% for x in (1..3) %}{{ forloop.index }}{{ x }}{% endfor %}";
    expect(() => checkTemplate("issue_body", source)).not.toThrow();
  });
});

describe("strict templates: filters", () => {
  it("an unknown filter is an error that suggests the filter", () => {
    const message = problemOf("issue_title", "{{ threat.title | upcas }}");
    expect(message).toMatch(/undefined filter: upcas/);
    expect(message).toMatch(/did you mean `upcase`\?/);
  });

  it("a filter the sandbox removed (it reads the clock) is unknown", () => {
    expect(problemOf("issue_body", "{{ 'now' | date: '%Y' }}")).toMatch(/undefined filter: date/);
  });

  it("every date filter is removed, so the engine's locale is never read and the process's locale is not asked (no Intl at an engine's creation: it loads the locale data at start)", () => {
    for (const filter of [
      "date",
      "date_to_xmlschema",
      "date_to_rfc822",
      "date_to_string",
      "date_to_long_string",
    ])
      expect(problemOf("issue_body", `{{ threat.updated_at | ${filter} }}`), filter).toMatch(
        /undefined filter/,
      );
    const spy = vi.spyOn(Intl, "DateTimeFormat");
    try {
      checkTemplate("issue_title", "{{ threat.title }}");
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe("strict templates: templates that must pass", () => {
  it("the contract's and the defaults' templates of every kind", () => {
    const good: [TemplateKind, string][] = [
      ["group_title", "{{ group.key }}: {{ group.open }} open of {{ group.total }}"],
      ["group_title", DEFAULT_GROUP_TITLE],
      ["group_title", "{{ group.name }} ({{ group.by }})"],
      ["acceptance_note", "Risk accepted on GitHub ({{ issue }}) by {{ login }} until {{ until }}."],
      ["acceptance_note", DEFAULT_ACCEPTANCE_NOTE],
      ["verdict_note", "Closed on GitHub ({{ issue }}) by {{ login }} as {{ reason }}."],
      ["verdict_note", "Reopened on GitHub ({{ issue }}) by {{ login }}: {{ url }}"],
      ["issue_title", "[{{ threat.severity }}] {{ threat.title }}"],
      [
        "issue_body",
        "{{ threat.description }}\n{{ threat.module_data_table }}\n{{ platform_url }}\n{% if sla %}Due {{ sla.due }} ({{ sla.days_left }} days, breached: {{ sla.breached }}){% endif %}\n{{ asset.name }} {{ asset.type }} {{ asset.id }} {{ threat.id }} {{ threat.status }} {{ threat.module }} {{ threat.age_days }} {{ threat.asset_id }} {{ threat.updated_at }} {{ threat.severity_rank }}",
      ],
    ];
    for (const [kind, source] of good) expect(() => checkTemplate(kind, source), source).not.toThrow();
  });

  it("config/threatbridge.yaml validates, and so does every template it shows commented out", async () => {
    const text = await readFile(resolve(import.meta.dirname, "../../config/threatbridge.yaml"), "utf8");
    expect(() => parse(text)).not.toThrow();
    // The commented examples, uncommented: a reader who copies them gets a valid config.
    const commented = [...text.matchAll(/^#\s*(?:title|status_note|body):\s*"(.*\{\{.*)"/gm)];
    expect(commented.length).toBeGreaterThan(2);
    for (const [, source] of commented) {
      const kind: TemplateKind = source?.includes("group.")
        ? "group_title"
        : source?.includes("until")
          ? "acceptance_note"
          : "issue_title";
      expect(() => checkTemplate(kind, source ?? ""), source).not.toThrow();
    }
  });
});

describe("strict templates in the config file", () => {
  it("templates.title with a typo: file, line, key path and suggestion", () => {
    const error = errorOf(minimalPlus("templates:", '  title: "{{ threat.titel }}"'));
    expect(error.message).toMatch(
      /test\.yaml:10: templates\.title: invalid template: unknown variable `threat\.titel`/,
    );
    expect(error.message).toMatch(/did you mean `threat\.title`/);
  });

  it("acceptance.status_note and grouping.title with typos: each named with its line", () => {
    const error = errorOf(
      minimalPlus(
        "grouping:",
        "  by: cve",
        '  title: "{{ group.ky }}"',
        "acceptance:",
        '  status_note: "Accepted ({{ isue }})"',
      ),
    );
    expect(error.message).toMatch(
      /test\.yaml:11: grouping\.title: invalid template: .*did you mean `group\.key`/,
    );
    expect(error.message).toMatch(
      /test\.yaml:13: acceptance\.status_note: invalid template: .*did you mean `issue`/,
    );
  });

  it("a verdict note with an unknown filter names verdicts.closed.completed.status_note", () => {
    const error = errorOf(
      minimalPlus(
        "verdicts:",
        "  closed:",
        "    completed:",
        "      status: solved",
        '      status_note: "{{ login | downcas }}"',
      ),
    );
    expect(error.message).toMatch(
      /test\.yaml:13: verdicts\.closed\.completed\.status_note: invalid template: .*did you mean `downcase`/,
    );
  });

  it("valid templates of every kind validate", () => {
    expect(() =>
      parse(
        minimalPlus(
          "templates:",
          '  title: "[{{ threat.severity | upcase }}] {{ threat.title }}"',
          '  body: "{{ threat.description }} {{ sla.due }}"',
          "grouping:",
          "  by: cve",
          '  title: "{{ group.key }}: {{ group.open }} open of {{ group.total }}"',
          "acceptance:",
          '  status_note: "Risk accepted on GitHub ({{ issue }}) by {{ login }} until {{ until }}."',
        ),
        ENV,
      ),
    ).not.toThrow();
  });
});
