import { describe, expect, test } from "vitest";
import {
  escapeMarkdownInline,
  escapePlainText,
  findMarkerIds,
  renderIssue,
} from "../../../src/sync/render/index.js";
import { ASSET, OPTIONS, THREAT_ID, markerCount, threat } from "./fixtures.js";

const Z = "\u200B";

// Contract, "Conventions": text from the platform is rendered inertly: it cannot @mention
// anyone, cross-reference an issue (#12, owner/repo#12) or inject HTML.
describe("contract: platform text is rendered inertly (Markdown contexts)", () => {
  test.each([
    ["@octocat", `@${Z}octocat`],
    ["@org/team", `@${Z}org/team`],
    ["mail me: a@b.example", `mail me: a@${Z}b.example`],
    ["#12", `#${Z}12`],
    ["owner/repo#12", `owner/repo#${Z}12`],
    ["GH-12 and gh-7", `GH-${Z}12 and gh-${Z}7`],
    ["see https://github.com/o/r/issues/1", `see https:${Z}//github.com/o/r/issues/1`],
    ["www.github.com/o/r/issues/1", `www${Z}.github.com/o/r/issues/1`],
    ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
    ["<script>alert('x')</script>", "&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;"],
    ['"quoted" & more', "&quot;quoted&quot; &amp; more"],
    ["[link](http://x)", `\\[link\\](http:${Z}//x)`],
    ["![img](http://x)", `!\\[img\\](http:${Z}//x)`],
    ["| table |", "\\| table \\|"],
    ["`code` and ```fence```", "\\`code\\` and \\`\\`\\`fence\\`\\`\\`"],
    [
      "*bold* _em_ ~~strike~~ $x$ back\\slash",
      "\\*bold\\* \\_em\\_ \\~\\~strike\\~\\~ \\$x\\$ back\\\\slash",
    ],
    ["<!-- threatbridge:threat=abc -->", `&lt;!-- threatbridge${Z}:threat=abc --&gt;`],
    ["line one\r\nline two\nthree\rfour", "line one line two three four"],
    ["&#64;octocat &#35;12", `&amp;#${Z}64;octocat &amp;#${Z}35;12`],
    // Each markup character is escaped once: an entity's `&` or a backslash is never escaped again.
    ["a\\<b>&*_&amp;", "a\\\\&lt;b&gt;&amp;\\*\\_&amp;amp;"],
    ["🚨 Überprüfung 日本語 é", "🚨 Überprüfung 日本語 é"],
  ])("%j → %j", (input, expected) => {
    expect(escapeMarkdownInline(input)).toBe(expected);
  });

  test("escaping is stable for text that already holds a zero-width space after @", () => {
    expect(escapeMarkdownInline(`@${Z}octocat`)).toBe(`@${Z}octocat`);
  });

  test("control characters and lone surrogates are removed or replaced", () => {
    expect(escapeMarkdownInline("a\u0000b\u0007c\uD800d")).toBe("abc\uFFFDd");
  });
});

describe("issue title (plain text on GitHub: no entities, but no mentions or references)", () => {
  test("a title with CRLF, mentions, references and HTML", () => {
    const title = "Exposed <b>panel</b>\r\nping @octocat re #12 and owner/repo#12";
    expect(escapePlainText(title)).toBe(
      `Exposed <b>panel</b> ping @${Z}octocat re #${Z}12 and owner/repo#${Z}12`,
    );
  });

  test("a fake marker in the title is broken in the title and in the body", () => {
    const fake = "<!-- threatbridge:threat=00000000-0000-4000-8000-000000000000 -->";
    const issue = renderIssue(threat({ title: `Bad ${fake}` }), ASSET, OPTIONS);
    expect(markerCount(issue.title)).toBe(0);
    expect(markerCount(issue.body)).toBe(1);
    expect(findMarkerIds(issue.body)).toEqual([THREAT_ID]);
  });

  test("a title with newlines stays one line in the title and in the table cell", () => {
    const issue = renderIssue(threat({ title: "first\r\nsecond\nthird" }), ASSET, OPTIONS);
    expect(issue.title).toBe("[High] first second third — shop.example.com");
    expect(issue.body).toContain("| Title | first second third |");
  });
});

describe("description (a Markdown block)", () => {
  test("line breaks are kept; nothing opens a heading, list, quote, fence, table or code block", () => {
    const description = [
      "# heading",
      "- item",
      "+ item",
      "1. first",
      "2) second",
      "> quote",
      "```js",
      "    indented",
      "===",
      "---",
      "a | b",
      "",
      "",
      "",
      "new paragraph @here #1",
    ].join("\n");
    const body = renderIssue(threat({ description }), ASSET, OPTIONS).body;
    const expected = [
      "\\# heading\\",
      "\\- item\\",
      "\\+ item\\",
      "1\\. first\\",
      "2\\) second\\",
      "&gt; quote\\",
      "\\`\\`\\`js\\",
      "indented\\",
      "\\===\\",
      "\\---\\",
      "a \\| b",
      "",
      `new paragraph @${Z}here #${Z}1`,
    ].join("\n");
    expect(body).toContain(`### Description\n\n${expected}\n\n`);
  });

  test("module data keys and values are escaped too", () => {
    const body = renderIssue(
      threat({ moduleData: { "@admin": "<b>#5</b>", "x|y": ["@a", "`b`"] } }),
      ASSET,
      OPTIONS,
    ).body;
    expect(body).toContain(`| @${Z}admin | &lt;b&gt;#${Z}5&lt;/b&gt; |`);
    expect(body).toContain(`| x\\|y | @${Z}a, \\\`b\\\` |`);
  });

  test("asset name and type, module and severity are escaped in the table; the status is not shown", () => {
    const issue = renderIssue(
      threat({ module: "@mod", severity: "<i>high</i>", status: "#1" }),
      { id: "<a>", name: "@octocat|x", type: "`t`" },
      OPTIONS,
    );
    expect(issue.body).toContain(`| Severity | &lt;i&gt;high&lt;/i&gt; |`);
    expect(issue.body).not.toContain("| Status |");
    expect(issue.body).toContain(`| Module | @${Z}mod |`);
    expect(issue.body).toContain(`| Asset | @${Z}octocat\\|x |`);
    expect(issue.body).toContain("| Asset type | \\`t\\` |");
    expect(issue.body).toContain("| Asset ID | &lt;a&gt; |");
  });
});
