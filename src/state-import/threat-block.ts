import { z } from "zod";
import { FormatError, isInt, KeyedRows, need, parseWith, unpackRows, type JsonObject } from "./packs.js";
import { cellsOf, PACKED_COLUMNS, packedColumns, sliceCells } from "./threat-packs.js";
import { isIssueId, ThreatRows } from "./threat-rows.js";

/**
 * The `threats` block of a store version 7 snapshot, codec `threat-8`: the records as columns, a
 * cell a row. A row's issue is `repos[repo]`, `number`, `closed`, `hash` and `bases[url]` (the
 * URL is `<base>/<repo>/issues/<number>`; repo -1: no issue), `link` 1 when it is `<repo>#<number>`,
 * `updated` epoch ms, `asset` an index into `assets` (-1: null). The columns only the features fill
 * are in `colPack`: GitHub's issue id (0: not known), the SLA (`slaSince` ms after `slaBase`, null:
 * none; `slaDue` an index into `slaSpans`, due − since; `slaBreach` 0, 1 added, 2 removed;
 * `slaMilestone` an index into `milestones`, -1: none) and `occurrence` (0: the first). Each
 * feature's slices (`sliceNames[k]`) are `slicePacks[k]`. The records of any other shape are whole
 * in `rawPack` (`rest` and `raw`, of the codecs before, are empty).
 *
 * Codec `threat-4` (store versions 3 and 6: no threat has workflow data) is the same block without
 * the features: every column a JSON array (none of digits), GitHub's issue id, when some issue's
 * is known, the column `issueId` beside the others, and the records of any other shape whole in
 * `raw` (`[id, record]` pairs).
 */

const BASE_COLUMNS = [
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
];
/** The first and last epoch ms toISOString writes with a four-digit year. */
const FIRST_TIME_MS = -62_167_219_200_000;
const LAST_TIME_MS = 253_402_300_799_999;
const MAX_INT32 = 2 ** 31 - 1;

const Strings = z.array(z.string());
const ThreatBlock = z.looseObject({
  codec: z.enum(["threat-4", "threat-8"]),
  ids: Strings,
  colPack: z.string().optional(),
  slaBase: z.int().optional(),
  slaSpans: z.array(z.int()).optional(),
  sliceNames: Strings.optional(),
  slicePacks: Strings.optional(),
  rest: z.tuple([]),
  raw: KeyedRows,
  rawPack: z.string().optional(),
  repos: Strings,
  statuses: Strings,
  bases: Strings,
  assets: Strings.optional(),
  milestones: Strings.optional(),
});
type ThreatBlock = z.infer<typeof ThreatBlock>;
/** What a `threat-4` block never holds: the features' columns and lists, and threat-8's packs. */
const NOT_IN_THREAT_4 = [
  ...PACKED_COLUMNS.filter((name) => name !== "issueId"),
  "colPack",
  "slaBase",
  "slaSpans",
  "sliceNames",
  "slicePacks",
  "rawPack",
  "milestones",
];

/** `list[cell]` when the cell is an index into it, else undefined. */
const at = <T>(list: readonly T[], cell: unknown): T | undefined =>
  isInt(cell, 0, list.length - 1) ? list[cell] : undefined;

/** Row i's cell of a column, by name (undefined: the column is absent). */
type Cell = (name: string, i: number) => unknown;

/** Row i's issue and link (none when `repo` is -1), as the old table gave them back. */
function issueOf(block: ThreatBlock, cell: Cell, i: number): JsonObject | null {
  const issueId = cell("issueId", i) ?? 0;
  if (cell("repo", i) === -1) return cell("link", i) === 0 && issueId === 0 ? {} : null;
  const [repo, number, closed, hash] = [
    at(block.repos, cell("repo", i)),
    ...["number", "closed", "hash"].map((n) => cell(n, i)),
  ];
  const base = at(block.bases, cell("url", i));
  if (repo === undefined || base === undefined || !isInt(number, 1, MAX_INT32) || typeof hash !== "string")
    return null;
  if ((closed !== 0 && closed !== 1) || !(issueId === 0 || isIssueId(issueId))) return null;
  const state = closed === 1 ? "closed" : "open";
  const issue: JsonObject = { repo, number, url: `${base}/${repo}/issues/${number}`, state, hash };
  if (issueId !== 0) issue["id"] = issueId;
  const link = cell("link", i);
  return link === 1 ? { issue, link: `${repo}#${number}` } : link === 0 ? { issue } : null;
}

/** Row i's SLA and occurrence; null when a cell is malformed. */
function workflowOf(block: ThreatBlock, cell: Cell, i: number): JsonObject | null {
  const [since, due, breach, milestone] = [
    cell("slaSince", i) ?? null,
    cell("slaDue", i) ?? null,
    cell("slaBreach", i) ?? 0,
    cell("slaMilestone", i) ?? -1,
  ];
  const occurrence = cell("occurrence", i) ?? 0;
  if (!isInt(occurrence, 0, MAX_INT32)) return null;
  const out: JsonObject = {};
  if (since === null) {
    if (due !== null || breach !== 0 || milestone !== -1) return null;
  } else {
    const start = isInt(since, 0, Number.MAX_SAFE_INTEGER) ? (block.slaBase ?? 0) + since : Number.NaN;
    const end = start + (at(block.slaSpans ?? [], due) ?? Number.NaN);
    const title = milestone === -1 ? null : at(block.milestones ?? [], milestone);
    if (!isInt(start, FIRST_TIME_MS, LAST_TIME_MS) || !isInt(end, FIRST_TIME_MS, LAST_TIME_MS)) return null;
    if ((breach !== 0 && breach !== 1 && breach !== 2) || title === undefined) return null;
    const sla: JsonObject = { since: new Date(start).toISOString(), due: new Date(end).toISOString() };
    if (breach !== 0) sla["breach"] = breach === 1 ? "added" : "removed";
    if (title !== null) sla["milestone"] = title;
    out["sla"] = sla;
  }
  if (occurrence > 0) out["occurrence"] = occurrence;
  return out;
}

/** The rows of a `threat-4` or `threat-8` block; FormatError naming the first cell that is not as written. */
export function decodeThreatBlock(value: unknown): ThreatRows {
  const block = parseWith(ThreatBlock, value);
  const threat4 = block.codec === "threat-4";
  if (threat4)
    for (const name of NOT_IN_THREAT_4) need(block[name] === undefined, `codec threat-4 holds no ${name}`);
  else need(block.raw.length === 0, "codec threat-8 holds its other records in rawPack, not raw");
  const count = block.ids.length;
  const packed = block.colPack === undefined ? {} : packedColumns(block.colPack);
  const columns = new Map<string, unknown[]>();
  for (const name of [...BASE_COLUMNS, ...PACKED_COLUMNS]) {
    const cells = packed[name] ?? block[name];
    need(
      packed[name] === undefined || block[name] === undefined,
      `column ${name} is both in colPack and outside it`,
    );
    if (cells !== undefined) columns.set(name, cellsOf(name, cells, count, !threat4));
    else need(PACKED_COLUMNS.includes(name), `column ${name} is missing`);
  }
  const cell: Cell = (name, i) => columns.get(name)?.[i];
  const names = block.sliceNames ?? [];
  const packs = block.slicePacks;
  const paired = names.length === (packs?.length ?? 0) && new Set(names).size === names.length;
  need(
    paired && (block.sliceNames === undefined) === (packs === undefined),
    "sliceNames and slicePacks do not pair up",
  );
  const slices = names.map((name, k) => sliceCells(name, packs?.[k] ?? "", count));
  const rows = new ThreatRows(names);
  for (const [i, id] of block.ids.entries()) {
    const [status, severity, asset] = [
      at(block.statuses, cell("status", i)),
      cell("severity", i),
      cell("asset", i),
    ];
    const assetId = asset === -1 ? null : at(block.assets ?? [], asset);
    const issue = issueOf(block, cell, i);
    const updated = cell("updated", i);
    const workflow = workflowOf(block, cell, i);
    if (status === undefined || !isInt(severity, 0, 4) || assetId === undefined || issue === null)
      throw new FormatError(`threat ${id}: its status, severity, asset or issue is malformed`);
    if (!isInt(updated, 1, 8.64e15) || workflow === null)
      throw new FormatError(`threat ${id}: its updatedAt, sla or occurrence is malformed`);
    const record: JsonObject = {
      status,
      severity,
      assetId,
      ...issue,
      updatedAt: new Date(updated).toISOString(),
    };
    Object.assign(record, workflow);
    const own = names.flatMap((name, k) => {
      const slice = slices[k]?.[i];
      return typeof slice === "string" ? [[name, slice] as const] : [];
    });
    if (own.length > 0) record["slices"] = Object.fromEntries(own);
    if (!rows.add(id, record)) throw new FormatError(`threat ${id} appears twice`);
  }
  // As the old table loaded them: after the column rows, each set as if written anew.
  const whole = block.rawPack === undefined ? block.raw : unpackRows(block.rawPack, "rawPack");
  for (const [id, value] of whole) rows.set(id, value);
  return rows;
}
