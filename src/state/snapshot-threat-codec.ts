import { z } from "zod";
import { ParsedJson, type Json } from "./journal-line.js";

/**
 * The snapshot encoding of the `threats` collection (issue 7: ≤ 15 MB at 100k mapped threats,
 * against 43 MB as plain JSON), documented in README-store.md ("Compact encoding"). The engine's
 * column table writes and reads codec `threat-4` itself (threat-table.ts); this module holds the
 * block's schema and `ThreatEncoder`, which encodes a plain map of threats as codec `threat-3`
 * (asset ids in the column, fields beyond the packed ones in `rest`, other values in `raw`),
 * the format of store version 2, still read.
 */

/**
 * A column is checked as an array only: each cell is checked as the row is decoded
 * (threat-table.ts), and a zod pass over a million cells cost a sixth of the load at 100k.
 */
const Column = z.custom<unknown[]>((value) => Array.isArray(value), "expected an array");
export const ThreatColumns = z.object({
  /** threat-3: `asset` cells are the ids; threat-4: indexes into `assets` (-1: none). */
  codec: z.enum(["threat-3", "threat-4"]),
  ids: Column,
  status: Column,
  severity: Column,
  asset: Column,
  repo: Column,
  number: Column,
  closed: Column,
  hash: Column,
  url: Column,
  link: Column,
  updated: Column,
  rest: z.array(z.tuple([z.int().nonnegative(), z.record(z.string(), ParsedJson)])),
  raw: z.array(z.tuple([z.string(), ParsedJson])),
  repos: z.array(z.string()),
  statuses: z.array(z.string()),
  bases: z.array(z.string()),
  assets: z.array(z.string()).optional(),
});
export type ThreatColumns = z.infer<typeof ThreatColumns>;

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
const PACKED = new Set(["status", "severity", "assetId", "issue", "link", "updatedAt"]);
const COLUMNS = [
  "ids",
  "status",
  "severity",
  "asset",
  "repo",
  "number",
  "closed",
  "hash",
  "url",
  "link",
  "updated",
] as const;
type ColumnName = (typeof COLUMNS)[number];

interface PackedIssue {
  repo: number;
  number: number;
  closed: 0 | 1;
  hash: string;
  url: number | string;
}

export class ThreatEncoder {
  private readonly repos = new Interner();
  private readonly statuses = new Interner();
  private readonly bases = new Interner();
  private readonly columns: Record<ColumnName, Json[]> = {
    ids: [],
    status: [],
    severity: [],
    asset: [],
    repo: [],
    number: [],
    closed: [],
    hash: [],
    url: [],
    link: [],
    updated: [],
  };
  private readonly rest: Json[] = [];
  private readonly raw: Json[] = [];

  add(id: string, value: Json): void {
    if (!isObject(value)) return void this.raw.push([id, value]);
    const { status, severity, assetId, issue, link, updatedAt } = value;
    if (typeof status !== "string" || typeof severity !== "number" || !Number.isInteger(severity))
      return void this.raw.push([id, value]);
    if (assetId !== null && typeof assetId !== "string") return void this.raw.push([id, value]);
    if (link !== undefined && typeof link !== "string") return void this.raw.push([id, value]);
    if (updatedAt !== undefined && typeof updatedAt !== "string") return void this.raw.push([id, value]);
    const packed = issue === undefined ? null : this.issue(issue);
    if (issue !== undefined && packed === null) return void this.raw.push([id, value]);
    let linkCell: Json = 0;
    if (link !== undefined) {
      const derived = isObject(issue) ? `${String(issue["repo"])}#${String(issue["number"])}` : null;
      linkCell = link === derived ? 1 : link;
    }
    const c = this.columns;
    const row = c.ids.length;
    c.ids.push(id);
    c.status.push(this.statuses.of(status));
    c.severity.push(severity);
    c.asset.push(assetId);
    c.repo.push(packed?.repo ?? -1);
    c.number.push(packed?.number ?? 0);
    c.closed.push(packed?.closed ?? 0);
    c.hash.push(packed?.hash ?? "");
    c.url.push(packed?.url ?? 0);
    c.link.push(linkCell);
    c.updated.push(updatedAt === undefined ? 0 : updatedCell(updatedAt));
    let extra: JsonObject | null = null;
    for (const key of Object.keys(value)) {
      if (PACKED.has(key)) continue;
      const field = value[key];
      if (field === undefined) continue;
      extra ??= {};
      extra[key] = field;
    }
    if (extra !== null) this.rest.push([row, extra]);
  }

  private issue(issue: Json): PackedIssue | null {
    if (!isObject(issue)) return null;
    for (const key of Object.keys(issue)) if (!ISSUE_KEYS.has(key)) return null;
    const { repo, number, url, state, hash } = issue;
    if (typeof repo !== "string" || typeof number !== "number" || !Number.isInteger(number)) return null;
    if (typeof url !== "string" || typeof hash !== "string") return null;
    if (state !== "open" && state !== "closed") return null;
    const suffix = `/${repo}/issues/${number}`;
    const urlCell = url.endsWith(suffix) ? this.bases.of(url.slice(0, -suffix.length)) : url;
    return { repo: this.repos.of(repo), number, closed: state === "closed" ? 1 : 0, hash, url: urlCell };
  }

  /** The block's JSON members (without braces), `chunk` cells at a time, pausing in between. */
  async members(chunk: number, pause: () => Promise<void>): Promise<string[]> {
    const parts = [`"codec":"threat-3"`];
    // `rest` and `raw` may be as long as the columns (records migrated from version 1).
    const arrays: [string, Json[]][] = [
      ...COLUMNS.map((name): [string, Json[]] => [name, this.columns[name]]),
      ["rest", this.rest],
      ["raw", this.raw],
    ];
    for (const [name, cells] of arrays) {
      parts.push(`,"${name}":[`);
      for (let start = 0; start < cells.length; start += chunk) {
        parts.push((start > 0 ? "," : "") + JSON.stringify(cells.slice(start, start + chunk)).slice(1, -1));
        await pause();
      }
      parts.push("]");
    }
    const tables = { repos: this.repos.list, statuses: this.statuses.list, bases: this.bases.list };
    parts.push(`,${JSON.stringify(tables).slice(1, -1)}`);
    return parts;
  }
}

/** An ISO time as epoch ms when that gives the same string back, else the string itself. */
function updatedCell(iso: string): number | string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms > 0 && new Date(ms).toISOString() === iso ? ms : iso;
}

/** Why a threat could not be decoded (the caller names the file). */
export class RowError extends Error {}

function at(list: readonly string[], index: number, what: string): string {
  const value = list[index];
  if (value === undefined) throw new RowError(`${what} index ${index} is not in the table`);
  return value;
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/**
 * Decodes the columns with plain type checks rather than a zod schema per threat: at 100k
 * threats, zod's copies of every row doubled the load time (issue 7 target: load ≤ 0.4 s at
 * 100k). Every cell is still checked before it is used.
 */
export function decodeThreatColumns(block: ThreatColumns, into: Map<string, Json>): void {
  const { ids, status, severity, asset, repo, number, closed, hash, url, link, updated } = block;
  const count = ids.length;
  for (const name of COLUMNS)
    if (block[name].length !== count)
      throw new RowError(`column ${name} has ${block[name].length} cells, not ${count}`);
  const extra = new Map<number, JsonObject>(block.rest);
  for (let i = 0; i < count; i++) {
    const id = ids[i];
    if (typeof id !== "string") throw new RowError(`id ${i} is not a string`);
    const malformed = (what: string): RowError => new RowError(`threat ${id}: ${what} is malformed`);
    const statusIndex = status[i];
    const sev = severity[i];
    const assetId = asset[i];
    if (!isIndex(statusIndex)) throw malformed("status");
    if (!isInt(sev)) throw malformed("severity");
    if (assetId !== null && typeof assetId !== "string") throw malformed("assetId");
    const value: JsonObject = { status: at(block.statuses, statusIndex, "status"), severity: sev, assetId };
    let repoNumber: string | null = null;
    const repoIndex = repo[i];
    if (repoIndex !== -1) {
      const n = number[i];
      const c = closed[i];
      const h = hash[i];
      const u = url[i];
      if (!isIndex(repoIndex) || !isInt(n) || (c !== 0 && c !== 1) || typeof h !== "string")
        throw malformed("issue");
      const name = at(block.repos, repoIndex, "repo");
      let issueUrl: string;
      if (isIndex(u)) issueUrl = `${at(block.bases, u, "url base")}/${name}/issues/${n}`;
      else if (typeof u === "string") issueUrl = u;
      else throw malformed("issue url");
      value["issue"] = { repo: name, number: n, url: issueUrl, state: c === 1 ? "closed" : "open", hash: h };
      repoNumber = `${name}#${n}`;
    }
    const l = link[i];
    if (l === 1) {
      if (repoNumber === null) throw new RowError(`threat ${id} has a derived link but no issue`);
      value["link"] = repoNumber;
    } else if (typeof l === "string") value["link"] = l;
    else if (l !== 0) throw malformed("link");
    const t = updated[i];
    if (typeof t === "number" && Number.isInteger(t) && t > 0) value["updatedAt"] = new Date(t).toISOString();
    else if (typeof t === "string") value["updatedAt"] = t;
    else if (t !== 0) throw malformed("updatedAt");
    const more = extra.get(i);
    if (more !== undefined) Object.assign(value, more);
    into.set(id, value);
  }
  for (const [id, value] of block.raw) into.set(id, value);
}
