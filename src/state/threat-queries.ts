import type { Json, Rows } from "./database.js";

/**
 * The questions the engine asks of every stored threat, answered by SQL over the rows' JSON
 * (SQLite's JSON functions read each row in C; no record is built in JavaScript), a page at a time.
 */

/** Keys of a threat record that every record may have: a record with any other is uncommon. */
const COMMON_KEYS = [
  "status",
  "severity",
  "assetId",
  "updatedAt",
  "gone",
  "issue",
  "link",
  "sla",
  "slices",
  "occurrence",
];
/** A row with a key outside COMMON_KEYS (the table's `value` named: json_each has a column of that name). */
const UNCOMMON = (table: string): string =>
  `EXISTS (SELECT 1 FROM json_each(${table}.value) AS j WHERE j.key NOT IN (${COMMON_KEYS.map((k) => `'${k}'`).join(", ")}))`;
const OPEN = `value ->> '$.issue.state' = 'open' AND coalesce(value ->> '$.gone', 0) = 0`;

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

  /** The records of an uncommon shape (a refusal, a risk acceptance, a recurrence's origin…). */
  *uncommon(): IterableIterator<[string, Json]> {
    for (const row of this.rows.pages(this.rows.columns, UNCOMMON(this.rows.table)))
      yield [String(row["id"]), this.rows.valueOf(row)];
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

  /** Every threat with an SLA: its due time, whether it counts as open, whether its breach was noted. */
  scanSla(visit: (id: string, dueMs: number, open: boolean, breach: boolean) => void): void {
    const columns = `id, value ->> '$.sla.due' AS due, (${OPEN}) AS open, value ->> '$.sla.breach' IS NOT NULL AS breach`;
    for (const row of this.rows.pages(columns, `value ->> '$.sla' IS NOT NULL`))
      visit(String(row["id"]), Date.parse(String(row["due"])), row["open"] === 1, row["breach"] === 1);
  }

  /** The earliest due time of an open threat's SLA whose breach is not noted (+∞: none). */
  earliestSlaDue(): number {
    const row = this.rows
      .statement(
        `SELECT min(unixepoch(value ->> '$.sla.due', 'subsec')) AS due FROM ${this.rows.table}
           WHERE value ->> '$.sla.due' IS NOT NULL AND value ->> '$.sla.breach' IS NULL AND ${OPEN}`,
      )
      .get();
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
