import type { Json, Rows } from "./database.js";

/**
 * The questions the engine asks of every stored threat, answered by SQL over the rows' JSON
 * (SQLite's JSON functions read each row in C; no record is built in JavaScript), a page at a time.
 */

/** A threat row (of alias `t`) that counts as open: an open issue, not gone. */
const OPEN = (t: string): string =>
  `${t}.value ->> '$.issue.state' = 'open' AND coalesce(${t}.value ->> '$.gone', 0) = 0`;

/**
 * Where a feature keeps a time in its slice, read in SQL (features/types.ts): `due`, the key of an
 * ISO time; `unless`, a key whose presence takes the slice out of `earliest` (a step done).
 */
export interface SliceTime {
  due: string;
  unless: string;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A slice's key as a JSON path (a feature's constant: checked, never text from outside). */
function pathOf(key: string): string {
  if (!KEY.test(key)) throw new Error(`a slice time's key must be a plain name, not ${key}`);
  return `$.${key}`;
}

export interface Tally {
  known: number;
  gone: number;
  mapped: number;
  open: number;
  closed: number;
  byRepository: Record<string, number>;
}

export class ThreatQueries {
  constructor(private readonly rows: Rows) {}

  /** Every threat's asset and issue. */
  scanIssues(
    visit: (id: string, assetId: string | null, issue: { repo: string; number: number } | null) => void,
  ): void {
    const columns = `id, value ->> '$.assetId' AS asset, value ->> '$.issue.repo' AS repo, value ->> '$.issue.number' AS number`;
    for (const row of this.rows.pages(columns, "")) {
      const repo = row["repo"];
      visit(
        String(row["id"]),
        row["asset"] === null ? null : String(row["asset"]),
        typeof repo === "string" ? { repo, number: Number(row["number"]) } : null,
      );
    }
  }

  /** Counts for `status`, and the records with a refused step or a deleted issue. */
  tally(): { tally: Tally; special: [string, Json][] } {
    const tally: Tally = { known: 0, gone: 0, mapped: 0, open: 0, closed: 0, byRepository: {} };
    const groups = this.rows
      .statement(
        `SELECT value ->> '$.issue.repo' AS repo, value ->> '$.issue.state' AS state, count(*) AS n,
           sum(coalesce(value ->> '$.gone', 0)) AS gone FROM ${this.rows.table} GROUP BY 1, 2`,
      )
      .all();
    for (const group of groups) {
      const n = Number(group["n"]);
      tally.known += n;
      tally.gone += Number(group["gone"]);
      const repo = group["repo"];
      if (typeof repo !== "string") continue;
      tally.mapped += n;
      if (group["state"] === "open") tally.open += n;
      else tally.closed += n;
      tally.byRepository[repo] = (tally.byRepository[repo] ?? 0) + n;
    }
    const special: [string, Json][] = [];
    for (const row of this.rows.pages(
      this.rows.columns,
      `value ->> '$.refused' IS NOT NULL OR value ->> '$.deletedIssue' IS NOT NULL`,
    ))
      special.push([String(row["id"]), this.rows.valueOf(row)]);
    return { tally, special };
  }

  /**
   * Every threat with a slice of `feature`: the time at `at.due` in it, whether the threat counts
   * as open, whether `at.unless` is set in it; from `feature_data` joined to the rows, a page at a time.
   */
  scanTimes(
    feature: string,
    at: SliceTime,
    visit: (id: string, dueMs: number, open: boolean, unless: boolean) => void,
  ): void {
    // Paged along feature_data's key (feature, subject): each page is a range of that index. Paged
    // by the threats' rowid instead, every page would join and sort all the feature's rows again.
    const page = this.rows.statement(
      `SELECT f.subject AS id, f.value ->> ? AS due, (${OPEN("t")}) AS open, f.value ->> ? IS NOT NULL AS unless
         FROM feature_data AS f JOIN ${this.rows.table} AS t ON t.id = f.subject
         WHERE f.feature = ? AND f.subject > ? ORDER BY f.subject LIMIT 1000`,
    );
    let after = "";
    for (;;) {
      const rows = page.all(pathOf(at.due), pathOf(at.unless), feature, after);
      for (const row of rows)
        visit(String(row["id"]), Date.parse(String(row["due"])), row["open"] === 1, row["unless"] === 1);
      if (rows.length < 1000) return;
      after = String(rows[rows.length - 1]?.["id"]);
    }
  }

  /** The earliest time at `at.due` of an open threat's `feature` slice without `at.unless` (+∞: none). */
  earliestTime(feature: string, at: SliceTime): number {
    const row = this.rows
      .statement(
        `SELECT min(unixepoch(f.value ->> ?, 'subsec')) AS due
           FROM feature_data AS f JOIN ${this.rows.table} AS t ON t.id = f.subject
           WHERE f.feature = ? AND f.value ->> ? IS NULL AND ${OPEN("t")}`,
      )
      .get(pathOf(at.due), feature, pathOf(at.unless));
    const due = row?.["due"];
    return typeof due === "number" ? Math.floor(due * 1000) : Number.POSITIVE_INFINITY;
  }

  /** Every record's slice of one feature (ThreatRecord.slices: its `feature_data` rows), in the rows' order. */
  scanSlices(feature: string, visit: (id: string, slice: string) => void): void {
    const statement = this.rows.statement(
      `SELECT t.id AS id, f.value AS slice FROM feature_data AS f JOIN ${this.rows.table} AS t ON t.id = f.subject
         WHERE f.feature = ? ORDER BY t.rowid`,
    );
    for (const row of statement.iterate(feature)) visit(String(row["id"]), String(row["slice"]));
  }
}
