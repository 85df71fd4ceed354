import type { Json, Rows } from "./database.js";

/**
 * The questions the engine asks of the stored threats, answered in SQL: lookups and counts over
 * the threats' virtual columns and the indexes on them (tables.ts), a feature's times over the
 * time columns of its `feature_data` rows, a page at a time where every row is read. No record is
 * built in JavaScript for them.
 */

/** A threat's issue as the rows' columns name it. */
export type IssueRef = { repo: string; number: number };

/**
 * Where a feature keeps a time in its slice, read in SQL (features/types.ts): `due`, the key of an
 * ISO time; `unless`, a key whose presence takes the slice out of `earliest` (a step done).
 */
export interface SliceTime {
  due: string;
  unless: string;
}

/**
 * Slices due whatever their time (a step that follows at once): those whose value at `path` (a key
 * as SliceTime's, or keys joined by dots into nested objects) is one of `values`.
 */
export interface SliceSteps {
  path: string;
  values: readonly string[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A slice's key (plain names joined by dots) as a JSON path: a feature's constant, checked. */
function pathOf(key: string): string {
  if (!KEY.test(key)) throw new Error(`a slice time's key must be plain names joined by dots, not ${key}`);
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

const PAGE = 1000;
/** A feature's number (`feature_data.feature`) from its name, the statement's parameter. */
const FEATURE = "(SELECT n FROM features WHERE name = ?)";

export class ThreatQueries {
  constructor(private readonly rows: Rows) {}

  /** Whether every change of the threats is written to the rows these questions read (not read-only). */
  get followsChanges(): boolean {
    return !this.rows.readOnly;
  }

  /** Every threat's asset and issue. */
  scanIssues(visit: (id: string, assetId: string | null, issue: IssueRef | null) => void): void {
    for (const row of this.rows.pages("id, asset, repo, number", "")) {
      const repo = row["repo"];
      visit(
        String(row["id"]),
        row["asset"] === null ? null : String(row["asset"]),
        typeof repo === "string" ? { repo, number: Number(row["number"]) } : null,
      );
    }
  }

  /**
   * The threat whose issue is `repo#number`, the repository's name compared without case (as GitHub
   * names them): one seek per stored spelling of it (of the latest row, if several map it).
   */
  threatOfIssue(repo: string, number: number): string | undefined {
    const lower = repo.toLowerCase();
    const spellings = this.repositories().filter((name) => name.toLowerCase() === lower);
    if (spellings.length === 0) return undefined;
    const row = this.rows
      .statement(
        `SELECT id FROM threats WHERE repo IN (SELECT value FROM json_each(?)) AND number = ?
           ORDER BY rowid DESC LIMIT 1`,
      )
      .get(JSON.stringify(spellings), number);
    return row === undefined ? undefined : String(row["id"]);
  }

  /** Every mapped threat and its issue, by repository and number (`threats_by_issue`), a page at a time. */
  *issues(): IterableIterator<[id: string, repo: string, number: number]> {
    const page = this.rows.statement(
      `SELECT rowid AS r, id, repo, number FROM threats INDEXED BY threats_by_issue
         WHERE repo IS NOT NULL AND (repo, number, rowid) > (?, ?, ?) ORDER BY repo, number, rowid LIMIT ${PAGE}`,
    );
    let after: [string, number, number] = ["", -1, 0];
    for (;;) {
      const rows = page.all(...after);
      for (const row of rows) yield [String(row["id"]), String(row["repo"]), Number(row["number"])];
      const last = rows[rows.length - 1];
      if (rows.length < PAGE || last === undefined) return;
      after = [String(last["repo"]), Number(last["number"]), Number(last["r"])];
    }
  }

  /** The threats of an asset (`threats_by_asset`). */
  threatsOfAsset(assetId: string): string[] {
    return this.rows
      .statement(`SELECT id FROM threats WHERE asset = ?`)
      .all(assetId)
      .map((row) => String(row["id"]));
  }

  /** The repositories of the mapped issues (as the records spell them), one seek of `threats_by_issue` each. */
  repositories(): string[] {
    const next = this.rows.statement(
      `SELECT repo FROM threats WHERE repo IS NOT NULL AND repo > ? ORDER BY repo LIMIT 1`,
    );
    const repos: string[] = [];
    for (let row = next.get(""); row !== undefined; row = next.get(String(row["repo"])))
      repos.push(String(row["repo"]));
    return repos;
  }

  /** Counts for `status` (by the indexes' columns), and the records with a refused step or a deleted issue. */
  tally(): { tally: Tally; special: [string, Json][] } {
    const count = (sql: string): number => Number(this.rows.statement(sql).get()?.["n"] ?? 0);
    const tally: Tally = {
      known: count(`SELECT count(*) AS n FROM threats`),
      gone: count(`SELECT count(*) AS n FROM threats WHERE special AND gone`),
      mapped: 0,
      open: 0,
      closed: 0,
      byRepository: {},
    };
    const groups = this.rows
      .statement(
        `SELECT repo, count(*) AS n, sum(issue_open) AS open FROM threats WHERE repo IS NOT NULL GROUP BY repo`,
      )
      .all();
    for (const group of groups) {
      const n = Number(group["n"]);
      const open = Number(group["open"]);
      tally.mapped += n;
      tally.open += open;
      tally.closed += n - open;
      tally.byRepository[String(group["repo"])] = n;
    }
    const special: [string, Json][] = [];
    for (const row of this.rows
      .statement(
        `SELECT ${this.rows.columns} FROM threats INDEXED BY threats_special WHERE special AND
           (value ->> '$.refused' IS NOT NULL OR value ->> '$.deletedIssue' IS NOT NULL)`,
      )
      .iterate())
      special.push([String(row["id"]), this.rows.valueOf(row)]);
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
      `SELECT f.subject AS s, t.id, f.value AS slice, t.repo AS repo, t.number AS number
         FROM feature_data AS f JOIN threats AS t ON t.n = f.subject
         WHERE f.feature = ${FEATURE} AND f.subject > ? ORDER BY f.subject LIMIT ${PAGE}`,
    );
    let after = 0;
    for (;;) {
      const rows = page.all(feature, after);
      for (const row of rows) {
        const repo = row["repo"];
        const issue = typeof repo === "string" ? { repo, number: Number(row["number"]) } : null;
        visit(String(row["id"]), String(row["slice"]), issue);
      }
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
    this.rows.declareTime(feature, pathOf(at.due), pathOf(at.unless));
  }
}
