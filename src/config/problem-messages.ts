import type { Document, LineCounter } from "yaml";
import type { z } from "zod";
import { describeExpected, describeGiven } from "./describe-expected.js";
import { formatPath, isSecretPath } from "./errors.js";
import type { ConfigProblem } from "./errors.js";
import { keyLocations, knownKeys, schemaAt } from "./schema-walk.js";
import { suggest } from "./suggest.js";
import { lineOfPath } from "./yaml-lines.js";

/**
 * Turns zod issues into problems an operator can act on: the key path, the line of that key in
 * the YAML (of the parent for a missing key, of the key itself for an unknown one) and a message
 * in plain words. zod's own messages are used only for the schema's custom rules, which are
 * written for operators already. Values of secret keys never appear (see `describeGiven`).
 */

interface IssueContext {
  doc: Document;
  lines: LineCounter;
  schema: z.core.$ZodType;
}

export function issuesToProblems(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const allowed = knownKeys(ctx.schema, issue.path);
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        problems.push({
          path: formatPath(path),
          line: lineOfPath(ctx.doc, ctx.lines, path),
          message: unknownKey(key, allowed, ctx.schema),
        });
      }
    } else {
      problems.push({
        path: formatPath(issue.path),
        line: lineOfPath(ctx.doc, ctx.lines, issue.path),
        message: issueMessage(issue, ctx.schema),
      });
    }
  }
  return problems;
}

/** A close key at the same level; else the one place this key belongs, if there is one; else the keys allowed here. */
function unknownKey(key: string, allowed: readonly string[], schema: z.core.$ZodType): string {
  const close = suggest(key, allowed);
  if (close !== undefined) return `unknown key; did you mean \`${close}\`?`;
  const homes = keyLocations(schema).filter((location) => location.key === key);
  if (homes.length === 1 && homes[0] !== undefined) {
    const home = homes[0].parent === "" ? "at the top level" : `under \`${homes[0].parent}\``;
    return `unknown key here; \`${key}\` belongs ${home}`;
  }
  return allowed.length > 0 ? `unknown key (allowed here: ${allowed.join(", ")})` : "unknown key";
}

function issueMessage(issue: z.core.$ZodIssue, schema: z.core.$ZodType): string {
  const expected = (): string => describeExpected(schemaAt(schema, issue.path));
  const given = describeGiven(issue.input, issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "required key is missing";
      return `expected ${expected()}, got ${given}`;
    case "invalid_union":
      return `expected ${expected()}, got ${given}`;
    case "too_small":
    case "too_big":
      return sizeMessage(issue, expected(), given);
    case "invalid_value": {
      const choices = issue.values.map(String);
      const close = typeof issue.input === "string" ? suggest(issue.input, choices) : undefined;
      const hint = close === undefined || isSecretPath(issue.path) ? "" : `; did you mean \`${close}\`?`;
      return `expected one of ${choices.join(", ")}, got ${given}${hint}`;
    }
    case "invalid_format":
      // A URL may carry credentials (user:password@host): say what is wrong, not what was given.
      if (issue.format === "url") return "expected an http(s) URL such as https://api.example.com";
      // zod's own wording ("Invalid string: ..."): say what the key takes instead.
      if (issue.message.startsWith("Invalid")) return `expected ${expected()}, got ${given}`;
      return typeof issue.input === "string" ? `${issue.message}, got ${given}` : issue.message;
    case "custom":
      return typeof issue.input === "string" ? `${issue.message}, got ${given}` : issue.message;
    default:
      return issue.message;
  }
}

function sizeMessage(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  expected: string,
  given: string,
): string {
  const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
  switch (issue.origin) {
    case "number":
    case "int":
      return `expected ${expected}, got ${given}`;
    case "string":
      if (issue.code === "too_small" && Number(bound) === 1) return "must not be empty";
      return `must be at ${issue.code === "too_small" ? "least" : "most"} ${bound} characters long`;
    case "array":
      return `must list at ${issue.code === "too_small" ? "least" : "most"} ${bound} item${Number(bound) === 1 ? "" : "s"}`;
    default:
      return issue.message;
  }
}
