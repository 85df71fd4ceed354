import type { CheckResult } from "./checks.js";

/** One line per check (contract): status, what was checked, what was found, and the hint of a failure. */
export function formatChecks(results: readonly CheckResult[]): string {
  const mark = { pass: "ok  ", fail: "FAIL", skip: "skip", warn: "WARN" } as const;
  const lines = results.map((r) => {
    const hint = r.hint === undefined ? "" : ` — hint: ${r.hint}`;
    return `${mark[r.status]} ${r.check}: ${oneLine(r.detail)}${hint}`;
  });
  const failed = results.filter((r) => r.status === "fail").length;
  lines.push(failed === 0 ? "all checks passed" : `${failed} of ${results.length} checks failed`);
  return lines.join("\n");
}

/** `--json`: one document. */
export function checksJson(results: readonly CheckResult[]): string {
  return JSON.stringify({ ok: results.every((r) => r.status !== "fail"), checks: results });
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}
