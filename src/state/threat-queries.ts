import type { Json, Rows } from "./database.js";

/**
 * The questions the engine asks of the stored threats, answered in SQL over the indexed columns
 * (tables.ts) a page at a time: no process holds every threat, and no record is built for them.
 */

/** A threat's issue as the rows' columns name it. */
export type IssueRef = { repo: string; number: number };

/**
 * Where a feature keeps a time in its slice, read in SQL (features/types.ts): `due`, the key of an
 * ISO time; `unless`, a key whose presence takes the slice out of `earliest` (a step done).
 */
export type SliceTime = { due: string; unless: string };

/**
 * Slices due whatever their time (a step that follows at once): those whose value at `path` (a key
 * as SliceTime's, or keys joined by dots into nested objects) is one of `values`.
 */
export type SliceSteps = { path: string; values: readonly string[] };

const KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A slice's key (plain names joined by dots) as a JSON path: a feature's constant, checked. */
function pathOf(key: string): string {
  if (!KEY.test(key)) throw new Error(`a slice time's key must be plain names joined by dots, not ${key}`);
  return `$.${key}`;
}

/** `status`'s counts of threats: known, gone, mapped to an issue, open and closed, and mapped by repository. */
export type Tally = Record<"known" | "gone" | "mapped" | "open" | "closed", number> & {
  byRepository: Record<string, number>;
};

const PAGE = 1000;
/** The texts of a threat row's asset and repository columns (their `n` in `asset_ids`, `repos`). */
const assetId = (t: string): string => `(SELECT id FROM asset_ids WHERE n = ${t}.asset)`;
const repoName = (t: string): string => `(SELECT name FROM repos WHERE n = ${t}.repo)`;
const issueOf = (row: Record<string, unknown>): IssueRef | null =>
  typeof row["repo"] === "string" ? { repo: row["repo"], number: Number(row["number"]) } : null;
/** A feature's number (`feature_data.feature`) from its name, the statement's parameter. */
const FEATURE = "(SELECT n FROM features WHERE name = ?)";

export class ThreatQueries {
  constructor(private readonly rows: Rows) {}

  /** Whether every change of the threats is written to the rows these questions read (not read-only). */
  get followsChanges(): boolean {
    return !this.rows.db.readOnly;
  }

  /** Every threat's asset and issue. */
  scanIssues(visit: (id: string, assetId: string | null, issue: IssueRef | null) => void): void {
    const columns = `id, ${assetId("threats")} AS asset, ${repoName("threats")} AS repo, number`;
    for (const row of this.rows.pages(columns, ""))
      visit(String(row["id"]), row["asset"] === null ? null : String(row["asset"]), issueOf(row));
  }

  /**
   * The threat whose issue is `repo#number`, the repository's name compared without case (as GitHub
   * names them): one seek per stored spelling of it (of the latest row, if several map it).
   */
  threatOfIssue(repo: string, number: number): string | undefined {
    const row = this.rows
      .statement(
        `SELECT t.id FROM repos AS r JOIN threats AS t ON t.repo = r.n
           WHERE r.name = ? COLLATE NOCASE AND t.number = ? ORDER BY t.rowid DESC LIMIT 1`,
      )
      .get(repo, number);
    return row === undefined ? undefined : String(row["id"]);
  }

  /** Every mapped threat and its issue, a page at a time. */
  *issues(): IterableIterator<[id: string, repo: string, number: number]> {
    for (const row of this.rows.pages(`id, ${repoName("threats")} AS name, number`, "repo IS NOT NULL"))
      yield [String(row["id"]), String(row["name"]), Number(row["number"])];
  }

  /** Whether the threat's row holds this version and is not gone (a re-delivery): one seek, no record read. */
  sameVersion(id: string, updatedAt: string, status: string): boolean {
    const sql = `SELECT 1 AS x FROM threats WHERE id = ? AND updated_at = ? AND status = ? AND NOT gone`;
    return this.rows.statement(sql).get(id, updatedAt, status) !== undefined;
  }

  /** The threats of an asset (`threats_by_asset`). */
  threatsOfAsset(assetId: string): string[] {
    return this.rows
      .statement(`SELECT id FROM threats WHERE asset = (SELECT n FROM asset_ids WHERE id = ?)`)
      .all(assetId)
      .map((row) => String(row["id"]));
  }

  /** The repositories of the mapped issues (as the records spell them), one seek of `threats_by_issue` each. */
  repositories(): string[] {
    return this.rows
      .statement(
        `SELECT name FROM repos AS r WHERE EXISTS (SELECT 1 FROM threats WHERE repo = r.n) ORDER BY name`,
      )
      .all()
      .map((row) => String(row["name"]));
  }

  /** Counts for `status` (by the indexes' columns), and the records with a refused step or a deleted issue. */
  tally(): { tally: Tally; special: [string, Json][] } {
    const count = (sql: string): number => Number(this.rows.statement(sql).get()?.["n"] ?? 0);
    const known = count(`SELECT count(*) AS n FROM threats`);
    const gone = count(`SELECT count(*) AS n FROM threats WHERE special AND gone`);
    const tally: Tally = { known, gone, mapped: 0, open: 0, closed: 0, byRepository: {} };
    const groups = this.rows
      .statement(
        `SELECT ${repoName("t")} AS repo, count(*) AS n, sum(issue_open) AS open FROM threats AS t
           WHERE repo IS NOT NULL GROUP BY t.repo`,
      )
      .all();
    for (const group of groups) {
      const n = Number(group["n"]);
      tally.byRepository[String(group["repo"])] = n;
      tally.mapped += n;
      tally.open += Number(group["open"]);
    }
    tally.closed = tally.mapped - tally.open;
    const special = this.rows
      .statement(
        `SELECT ${this.rows.columns} FROM threats INDEXED BY threats_special WHERE special AND
           (value ->> '$.refused' IS NOT NULL OR value ->> '$.deletedIssue' IS NOT NULL)`,
      )
      .all()
      .map((row): [string, Json] => [String(row["id"]), this.rows.valueOf(row)]);
    return { tally, special };
  }

  /**
   * Every threat with a slice of `feature` whose time at `at.due` is a time: that time, whether the
   * threat counts as open, whether `at.unless` is set in it (the feature's time columns).
   */
  scanTimes(
    feature: string,
    at: SliceTime,
    visit: (id: string, dueMs: number, open: boolean, unless: boolean) => void,
  ): void {
    this.declare(feature, at);
    const statement = this.rows.statement(
      `SELECT t.id, f.due, f.open, f.done FROM feature_data AS f INDEXED BY feature_data_due
         JOIN threats AS t ON t.n = f.subject WHERE f.feature = ${FEATURE} AND f.due IS NOT NULL`,
    );
    for (const row of statement.all(feature))
      visit(String(row["id"]), Number(row["due"]), row["open"] === 1, row["done"] === 1);
  }

  /**
   * How many open threats' `feature` slices have their time at `at.due` at or before each of
   * `bounds` (epoch ms), by index ranges of the feature's time columns.
   */
  countTimes(feature: string, at: SliceTime, bounds: readonly number[]): number[] {
    this.declare(feature, at);
    const statement = this.rows.statement(
      `SELECT count(*) AS n FROM feature_data INDEXED BY feature_data_due
         WHERE feature = ${FEATURE} AND open = 1 AND done IN (0, 1) AND due IS NOT NULL AND due <= ?`,
    );
    return bounds.map((bound) => Number(statement.get(feature, bound)?.["n"] ?? 0));
  }

  /** The earliest time at `at.due` of an open threat's `feature` slice without `at.unless` (+∞: none). */
  earliestTime(feature: string, at: SliceTime): number {
    this.declare(feature, at);
    const row = this.rows
      .statement(
        `SELECT min(due) AS due FROM feature_data INDEXED BY feature_data_due
           WHERE feature = ${FEATURE} AND open = 1 AND done = 0 AND due IS NOT NULL`,
      )
      .get(feature);
    const due = row?.["due"];
    return typeof due === "number" ? due : Number.POSITIVE_INFINITY;
  }

  /**
   * Every threat's slice of one feature (ThreatRecord.slices: its `feature_data` rows), by threat
   * id, with the threat's issue (from the row's columns: no row's JSON read).
   */
  scanSlices(feature: string, visit: (id: string, slice: string, issue: IssueRef | null) => void): void {
    const page = this.rows.statement(
      `SELECT f.subject AS s, t.id, f.value AS slice, ${repoName("t")} AS repo, t.number AS number
         FROM feature_data AS f JOIN threats AS t ON t.n = f.subject
         WHERE f.feature = ${FEATURE} AND f.subject > ? ORDER BY f.subject LIMIT ${PAGE}`,
    );
    let after = 0;
    for (;;) {
      const rows = page.all(feature, after);
      for (const row of rows) visit(String(row["id"]), String(row["slice"]), issueOf(row));
      if (rows.length < PAGE) return;
      after = Number(rows[rows.length - 1]?.["s"]);
    }
  }

  /**
   * The slices of `feature` a clock may find due by `bound` (epoch ms), whatever their subject's
   * openness or `at.unless`: those whose time at `at.due` is at or before `bound` (an index range of
   * the feature's time columns), those without a readable time there, and those
   * due whatever their time (`now`: read of each slice in SQL). Each is visited, by threat id (a
   * seek of its integer key; no threat's JSON is read), with its time (NaN: none) and its text.
   * Answers how many of the feature's slices are not visited (a time after `bound`, not due at once).
   */
  slicesDueBy(
    feature: string,
    at: SliceTime,
    bound: number,
    now: SliceSteps,
    visit: (id: string, dueMs: number, slice: string) => void,
  ): number {
    this.declare(feature, at);
    const feature1 = "feature = (SELECT n FROM features WHERE name = ?1)";
    const step = `(CASE WHEN json_valid(value) THEN value ->> ?3 END) IN (SELECT value FROM json_each(?4))`;
    const visited = `SELECT t.id, f.due, f.value FROM (
        SELECT subject, due, value FROM feature_data INDEXED BY feature_data_due
          WHERE ${feature1} AND open IN (0, 1) AND done IN (0, 1) AND due <= ?2
        UNION
        SELECT subject, due, value FROM feature_data WHERE ${feature1} AND (due IS NULL OR ${step})
      ) AS f JOIN threats AS t ON t.n = f.subject ORDER BY t.id`;
    const others = `SELECT count(*) AS n FROM feature_data
      WHERE ${feature1} AND due > ?2 AND coalesce(NOT (${step}), 1)`;
    const args = [feature, bound, pathOf(now.path), JSON.stringify(now.values)];
    for (const row of this.rows.statement(visited).all(...args)) {
      const dueMs = row["due"];
      visit(String(row["id"]), dueMs === null ? Number.NaN : Number(dueMs), String(row["value"]));
    }
    return Number(this.rows.statement(others).get(...args)?.["n"] ?? 0);
  }

  /** Gives `feature`'s rows their time columns at `at` (Db.declareTime). */
  private declare(feature: string, at: SliceTime): void {
    this.rows.db.declareTime(feature, pathOf(at.due), pathOf(at.unless));
  }
}
