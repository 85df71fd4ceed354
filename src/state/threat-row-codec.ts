import type { Json } from "./database.js";

/**
 * A threat row as stored, without what its issue already says (nothing stored that is derivable):
 * `link`, the platform's external reference, when it is `<repo>#<number>` of the issue, is stored
 * as `0`; the issue's `url`, when it is `<base>/<repo>/issues/<number>`, as `[<base>]`. Neither
 * marker is a value the record's schema allows there (the engine writes only records that parse),
 * so a stored value means one thing only; a value of any other shape is stored as it is. No
 * virtual column or query reads either field. The layout version (tables.ts) covers this form: a
 * threatbridge that does not know it refuses the file.
 */

type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The issue's repository and number, when the row has an issue of that shape. */
function issueOf(row: JsonObject): { issue: JsonObject; repo: string; number: number } | null {
  const issue = row["issue"];
  if (!isObject(issue)) return null;
  const { repo, number } = issue;
  return typeof repo === "string" && typeof number === "number" ? { issue, repo, number } : null;
}

/** The row as stored. */
export function packThreatRow(value: Json): Json {
  if (!isObject(value)) return value;
  const found = issueOf(value);
  if (found === null) return value;
  const { issue, repo, number } = found;
  let row = value;
  if (value["link"] === `${repo}#${number}`) row = { ...row, link: 0 };
  const url = issue["url"];
  const tail = `/${repo}/issues/${number}`;
  if (typeof url === "string" && url.endsWith(tail))
    row = { ...row, issue: { ...issue, url: [url.slice(0, -tail.length)] } };
  return row;
}

/** The stored row as the record it was. */
export function unpackThreatRow(value: Json): Json {
  if (!isObject(value)) return value;
  const found = issueOf(value);
  if (found === null) return value;
  const { issue, repo, number } = found;
  let row = value;
  if (value["link"] === 0) row = { ...row, link: `${repo}#${number}` };
  const url = issue["url"];
  if (Array.isArray(url) && url.length === 1 && typeof url[0] === "string")
    row = { ...row, issue: { ...issue, url: `${url[0]}/${repo}/issues/${number}` } };
  return row;
}
