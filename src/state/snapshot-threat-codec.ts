import { z } from "zod";
import type { Json } from "./journal-line.js";

/**
 * The compact snapshot encoding of the `threats` collection (issue 7: ≤ 15 MB at 100k mapped
 * threats, against 43 MB as plain JSON). A mapped threat {status, severity, assetId, issue:
 * {repo, number, url, state, hash}, link} becomes a row
 *   [id, statusIndex, severity, assetId, [repoIndex, number, closed 0|1, hash, url], link, rest?]
 * where repos and statuses are interned in per-snapshot tables; `url` is an index into a table
 * of bases when it is `<base>/<repo>/issues/<number>` (github.com or an Enterprise host), else
 * the URL itself; `link` is 1 when it is the contract's `<repo>#<number>`, 0 when absent, else
 * the string; `rest` holds any other fields as they are. The codec is lossless: a value that
 * does not fit the shape is kept whole as a row [id, value].
 */

export const ThreatRows = z.object({
  codec: z.literal("threat-1"),
  // Rows are checked one by one in decodeThreatRows, without copying them.
  rows: z.array(z.unknown()),
  repos: z.array(z.string()),
  statuses: z.array(z.string()),
  bases: z.array(z.string()),
});
export type ThreatRows = z.infer<typeof ThreatRows>;

type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Interner {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(value);
      this.index.set(value, i);
    }
    return i;
  }
}

const ISSUE_KEYS = new Set(["repo", "number", "url", "state", "hash"]);
const PACKED = new Set(["status", "severity", "assetId", "issue", "link"]);

export class ThreatEncoder {
  private readonly repos = new Interner();
  private readonly statuses = new Interner();
  private readonly bases = new Interner();

  row(id: string, value: Json): Json[] {
    if (!isObject(value)) return [id, value];
    const { status, severity, assetId, issue, link } = value;
    if (typeof status !== "string" || typeof severity !== "number" || !Number.isInteger(severity))
      return [id, value];
    if (assetId !== null && typeof assetId !== "string") return [id, value];
    let issueCell: Json = 0;
    let linkCell: Json = 0;
    if (issue !== undefined) {
      const packed = this.issue(issue);
      if (packed === null) return [id, value];
      issueCell = packed;
    }
    if (link !== undefined) {
      if (typeof link !== "string") return [id, value];
      const derived = isObject(issue) ? `${String(issue["repo"])}#${String(issue["number"])}` : null;
      linkCell = link === derived ? 1 : link;
    }
    const row: Json[] = [id, this.statuses.of(status), severity, assetId, issueCell, linkCell];
    let rest: JsonObject | null = null;
    for (const key of Object.keys(value)) {
      if (PACKED.has(key)) continue;
      rest ??= {};
      const field = value[key];
      if (field !== undefined) rest[key] = field;
    }
    if (rest !== null) row.push(rest);
    return row;
  }

  private issue(issue: Json): Json[] | null {
    if (!isObject(issue)) return null;
    for (const key of Object.keys(issue)) if (!ISSUE_KEYS.has(key)) return null;
    const { repo, number, url, state, hash } = issue;
    if (typeof repo !== "string" || typeof number !== "number" || !Number.isInteger(number)) return null;
    if (typeof url !== "string" || typeof hash !== "string") return null;
    if (state !== "open" && state !== "closed") return null;
    const suffix = `/${repo}/issues/${number}`;
    const urlCell = url.endsWith(suffix) ? this.bases.of(url.slice(0, -suffix.length)) : url;
    return [this.repos.of(repo), number, state === "closed" ? 1 : 0, hash, urlCell];
  }

  tables(): { repos: string[]; statuses: string[]; bases: string[] } {
    return { repos: this.repos.list, statuses: this.statuses.list, bases: this.bases.list };
  }
}

// Rows that do not fit the packed shape, and packed rows' extra fields, are rare: zod checks them.
const RawRow = z.tuple([z.string(), z.json()]);
const Rest = z.record(z.string(), z.json());

/** Why a row could not be decoded (the caller names the file). */
export class RowError extends Error {}

function at(list: readonly string[], index: number, what: string): string {
  const value = list[index];
  if (value === undefined) throw new RowError(`${what} index ${index} is not in the table`);
  return value;
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * Decodes packed rows with plain type checks rather than a zod schema per row: zod's tuple
 * parsing copies every row, and at 100k rows that garbage doubled the load time (issue 7 target:
 * load ≤ 0.4 s at 100k). Every cell is still checked before it is used.
 */
export function decodeThreatRows(block: ThreatRows, into: Map<string, Json>): void {
  for (const cells of block.rows) {
    if (!Array.isArray(cells)) throw new RowError("a threat row is not an array");
    if (cells.length === 2) {
      const [id, value] = RawRow.parse(cells);
      into.set(id, value);
      continue;
    }
    const [id, statusIndex, severity, assetId, issueCell, linkCell, restCell] = cells;
    if (typeof id !== "string") throw new RowError("a threat row has no id");
    const malformed = (what: string): RowError => new RowError(`threat ${id}: ${what} is malformed`);
    if (!isIndex(statusIndex)) throw malformed("status");
    if (!isInt(severity)) throw malformed("severity");
    if (assetId !== null && typeof assetId !== "string") throw malformed("assetId");
    if (cells.length > 7) throw malformed("row length");
    const value: JsonObject = { status: at(block.statuses, statusIndex, "status"), severity, assetId };
    let repoNumber: string | null = null;
    if (issueCell !== 0) {
      if (!Array.isArray(issueCell) || issueCell.length !== 5) throw malformed("issue");
      const [repoIndex, number, closed, hash, urlCell] = issueCell;
      if (!isIndex(repoIndex) || !isInt(number) || (closed !== 0 && closed !== 1) || typeof hash !== "string")
        throw malformed("issue");
      const repo = at(block.repos, repoIndex, "repo");
      let url: string;
      if (isIndex(urlCell)) url = `${at(block.bases, urlCell, "url base")}/${repo}/issues/${number}`;
      else if (typeof urlCell === "string") url = urlCell;
      else throw malformed("issue url");
      value["issue"] = { repo, number, url, state: closed === 1 ? "closed" : "open", hash };
      repoNumber = `${repo}#${number}`;
    }
    if (linkCell === 1) {
      if (repoNumber === null) throw new RowError(`threat ${id} has a derived link but no issue`);
      value["link"] = repoNumber;
    } else if (typeof linkCell === "string") value["link"] = linkCell;
    else if (linkCell !== 0) throw malformed("link");
    if (restCell !== undefined) {
      const rest = Rest.safeParse(restCell);
      if (!rest.success) throw malformed("extra fields");
      Object.assign(value, rest.data);
    }
    into.set(id, value);
  }
}
