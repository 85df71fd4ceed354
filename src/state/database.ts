import { StateError } from "./errors.js";
import { sqlite, type Database, type Statement } from "./sqlite.js";
import { featureTables, FIELDS, SCHEMA, SCHEMA_VERSION, TABLES, timeColumns, type Field } from "./tables.js";

/** A stored value: plain JSON, stored as its text. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The tables whose values' `slices` (feature → text) are `feature_data` rows, and the sign of a row's subject there. */
const SUBJECT: Readonly<Record<string, string>> = { threats: "", groups: "-" };

/** The `slices` of a row of `table` as one JSON object (feature → text; `{}`: none), for a SELECT. */
const slicesOf = (table: string): string =>
  `(SELECT json_group_object(k.name, f.value) FROM features AS k CROSS JOIN feature_data AS f
     ON f.feature = k.n AND f.subject = ${SUBJECT[table]}${table}.n)`;

/** The time columns of a slice written with its subject's row (tables.ts `timeColumns`). */
const WRITTEN = timeColumns("?3", "?2");

/**
 * One collection's rows, read and written in the database's open transaction (read-only, as a
 * dry-run plans: changes are kept in memory beside the stored rows, and every read sees them).
 * A sliced value (SUBJECT) is written as its `slices`, one `feature_data` row each, and the rest as
 * the row's JSON; a read joins them again, so callers see one value.
 */
export class Rows {
  /** A read-only connection's changes: key → its value, undefined when deleted. */
  private overlay: Map<string, Json | undefined> | null = null;
  /** The columns a read of whole values selects (`id`, `value`, and `slices` when sliced). */
  readonly columns: string;
  /** A sliced table's (SUBJECT) returning clause, the row's subject as `s`: "" for another. */
  private readonly returning: string;
  /** The fields its values keep in columns (tables.ts FIELDS), read as `f0`, `f1`, …. */
  private readonly fields: readonly Field[];
  /** The statement that writes a value (the row's JSON, its fields' columns). */
  private readonly upsert: string;

  constructor(
    /** The connection: read-only, changes are held in memory (`changedInMemory`). */
    readonly db: Db,
    readonly table: string,
  ) {
    const sliced = SUBJECT[table] !== undefined;
    this.returning = sliced ? `RETURNING ${SUBJECT[table]}n AS s` : "";
    this.fields = FIELDS[table] ?? [];
    const read = this.fields.map(({ column, names }, i) => {
      const cell = `${table}.${column}`;
      return `${names ? `(SELECT ${names.column} FROM ${names.table} WHERE n = ${cell})` : cell} AS f${i}`;
    });
    this.columns = ["id, value", ...read, ...(sliced ? [`${slicesOf(table)} AS slices`] : [])].join(", ");
    const columns = ["id", "value", ...this.fields.map((f) => f.column)];
    const values = columns.map((_, i) => {
      const names = this.fields[i - 2]?.names;
      return names ? `(SELECT n FROM ${names.table} WHERE ${names.column} = ?)` : "?";
    });
    const update = columns.slice(1).map((c) => `${c} = excluded.${c}`);
    this.upsert = `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${values.join(", ")})
      ON CONFLICT (id) DO UPDATE SET ${update.join(", ")} ${this.returning}`;
  }

  /** Whether changes are held in memory beside the rows (SQL over the table would miss them). */
  get changedInMemory(): boolean {
    return this.overlay !== null && this.overlay.size > 0;
  }

  get(key: string): Json | undefined {
    if (this.overlay?.has(key)) return this.overlay.get(key);
    return this.stored(key);
  }

  set(key: string, value: Json): void {
    if (this.db.readOnly) {
      (this.overlay ??= new Map()).set(key, value);
      return;
    }
    this.db.begin();
    const { row, slices } = this.returning ? split(value) : { row: value, slices: {} };
    const { rest, cells } = takeFields(row, this.fields);
    this.fields.forEach(({ names }, i) => {
      const text = cells[i];
      if (names && text !== null && text !== undefined)
        this.statement(`INSERT OR IGNORE INTO ${names.table} (${names.column}) VALUES (?)`).run(text);
    });
    const written = this.statement(this.upsert).get(key, JSON.stringify(rest), ...cells);
    if (written !== undefined) this.setSlices(Number(written["s"]), slices);
  }

  delete(key: string): void {
    if (this.db.readOnly) {
      (this.overlay ??= new Map()).set(key, undefined);
      return;
    }
    this.db.begin();
    const deleted = this.statement(`DELETE FROM ${this.table} WHERE id = ? ${this.returning}`).get(key);
    if (deleted !== undefined)
      this.statement(
        `DELETE FROM feature_data WHERE feature IN (SELECT n FROM features) AND subject = ?`,
      ).run(Number(deleted["s"]));
  }

  /**
   * The subject's feature_data rows become `slices`: those gone deleted, the changed written (a
   * timed feature's time columns with them, and whenever the subject's openness changed).
   */
  private setSlices(subject: number, slices: Record<string, string>): void {
    const features = Object.keys(slices);
    this.statement(
      `DELETE FROM feature_data WHERE feature IN
         (SELECT n FROM features WHERE name NOT IN (SELECT value FROM json_each(?1))) AND subject = ?2`,
    ).run(JSON.stringify(features), subject);
    for (const feature of features) this.db.knowFeature(feature);
    const upsert = this.statement(
      `INSERT INTO feature_data (feature, subject, value, open, due, done)
         SELECT k.n, ?2, ?3, ${WRITTEN.open}, ${WRITTEN.due}, ${WRITTEN.done}
           FROM features AS k WHERE k.name = ?1
         ON CONFLICT (feature, subject) DO UPDATE SET value = excluded.value, open = excluded.open,
           due = excluded.due, done = excluded.done
         WHERE value <> excluded.value OR open IS NOT excluded.open`,
    );
    for (const feature of features) upsert.run(feature, subject, slices[feature] ?? "");
  }

  /** A stored row (as `columns` selects it) as its value: its JSON and fields, with its slices when it has any. */
  valueOf(row: Record<string, unknown>): Json {
    const value = putFields(JSON.parse(String(row["value"])) as Json, this.fields, row);
    const slices = row["slices"];
    if (typeof slices !== "string" || slices === "{}" || !isObject(value)) return value;
    return { ...value, slices: JSON.parse(slices) as Json };
  }

  get size(): number {
    let n = Number(this.statement(`SELECT count(*) AS n FROM ${this.table}`).get()?.["n"] ?? 0);
    for (const [key, value] of this.overlay ?? [])
      n += (value === undefined ? 0 : 1) - (this.stored(key) === undefined ? 0 : 1);
    return n;
  }

  *entries(): IterableIterator<[string, Json]> {
    for (const row of this.pages(this.columns, "")) {
      const key = String(row["id"]);
      if (this.overlay?.has(key)) {
        const value = this.overlay.get(key);
        if (value !== undefined) yield [key, value];
      } else yield [key, this.valueOf(row)];
    }
    for (const [key, value] of [...(this.overlay ?? [])])
      if (value !== undefined && this.stored(key) === undefined) yield [key, value];
  }

  *keys(): IterableIterator<string> {
    if (this.overlay === null) for (const row of this.pages("id", "")) yield String(row["id"]);
    else for (const [key] of this.entries()) yield key;
  }

  private stored(key: string): Json | undefined {
    const row = this.statement(`SELECT ${this.columns} FROM ${this.table} WHERE id = ?`).get(key);
    return row === undefined ? undefined : this.valueOf(row);
  }

  /**
   * Every row (in the order written) of `columns`, where `where` holds, a page at a time: a write
   * to the table while the caller visits a row neither repeats nor stops the walk.
   */
  *pages(columns: string, where: string): IterableIterator<Record<string, unknown>> {
    const page = this.statement(
      `SELECT rowid AS _r, ${columns} FROM ${this.table} WHERE rowid > ? ${where ? `AND (${where})` : ""} ORDER BY rowid LIMIT 1000`,
    );
    let after = 0;
    for (;;) {
      const rows = page.all(after);
      for (const row of rows) yield row;
      if (rows.length < 1000) return;
      after = Number(rows[rows.length - 1]?.["_r"]);
    }
  }

  /** A prepared statement of this connection, made once (the connection's own cache). */
  statement(sql: string): Statement {
    return this.db.statement(sql);
  }
}

const isObject = (v: Json): v is { [key: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A sliced collection's value as written: the row's JSON, and its slices (feature → text) apart. */
function split(value: Json): { row: Json; slices: Record<string, string> } {
  if (!isObject(value) || !isObject(value["slices"] ?? null)) return { row: value, slices: {} };
  const { slices, ...row } = value;
  const texts: Record<string, string> = {};
  for (const [feature, text] of Object.entries(slices as Record<string, Json>))
    if (typeof text === "string") texts[feature] = text;
  return { row, slices: texts };
}

type Obj = { [key: string]: Json };

/**
 * A value's fields (tables.ts Field) taken out of a copy of it for their columns: the rest (an
 * object they leave empty goes too), and each field's cell, null where the value keeps it.
 */
function takeFields(
  value: Json,
  fields: readonly Field[],
): { rest: Json; cells: (string | number | null)[] } {
  if (fields.length === 0 || !isObject(value)) return { rest: value, cells: fields.map(() => null) };
  const rest: Obj = { ...value };
  const cells = fields.map(({ path: [head, key], integer }) => {
    const holder = key === undefined ? rest : rest[head];
    const name = key ?? head;
    if (!isObject(holder ?? null)) return null;
    const cell = (holder as Obj)[name];
    if (integer ? !Number.isSafeInteger(cell) : typeof cell !== "string") return null;
    const { [name]: _, ...kept } = holder as Obj;
    if (key === undefined) delete rest[name];
    else if (Object.keys(kept).length > 0) rest[head] = kept;
    else delete rest[head];
    return cell as string | number;
  });
  return { rest, cells };
}

/** A stored value's fields put back from the row's cells (`f0`, `f1`, …; NULL: kept in the JSON). */
function putFields(value: Json, fields: readonly Field[], row: Record<string, unknown>): Json {
  if (!isObject(value)) return value;
  fields.forEach(({ path: [head, key] }, i) => {
    const cell = row[`f${i}`] as string | number | null | undefined;
    if (cell === null || cell === undefined) return;
    if (key === undefined) value[head] = cell;
    else value[head] = { ...(value[head] as Obj | undefined), [key]: cell };
  });
  return value;
}

/** The database connection: its tables' rows, the `meta` table, and the open transaction. */
export class Db {
  private readonly rowsOf = new Map<string, Rows>();
  private readonly statements = new Map<string, Statement>();
  private inTransaction = false;
  /** Whether a read-only connection copied the features' tables into `temp` (declareTime). */
  private copied = false;

  constructor(
    private readonly database: Database,
    readonly readOnly: boolean,
  ) {}

  rows(collection: string): Rows {
    let rows = this.rowsOf.get(collection);
    if (rows !== undefined) return rows;
    const table = TABLES[collection] ?? (collection === "meta" ? collection : undefined);
    if (table === undefined) throw new Error(`no collection ${collection} in the state`);
    this.rowsOf.set(collection, (rows = new Rows(this, table)));
    return rows;
  }

  getMeta(key: string): Json | undefined {
    return this.rows("meta").get(key);
  }

  /** Lists a feature that writes a slice (a subject's slices are read through the list). */
  knowFeature(feature: string): void {
    this.statement(`INSERT OR IGNORE INTO features (name) VALUES (?)`).run(feature);
  }

  /**
   * Gives the rows of `feature` their time columns for a slice time at these JSON paths, when
   * first declared (or at other paths): a writable connection fills them for every row of the
   * feature, in the open transaction if there is one, else in one of its own. A read-only one
   * cannot write the file: it fills a copy of the features' tables in its `temp` schema, which
   * unqualified names find first (SQLite searches `temp` before the file), so every query reads
   * the times as over a writable connection (a copy of when it was made).
   */
  declareTime(feature: string, due: string, unless: string): void {
    const row = this.statement(`SELECT due, unless FROM features WHERE name = ?`).get(feature);
    if (row?.["due"] === due && row["unless"] === unless) return;
    if (this.readOnly && !this.copied) {
      this.database.exec(`${featureTables("temp")}
        INSERT INTO temp.features SELECT * FROM main.features;
        INSERT INTO temp.feature_data SELECT * FROM main.feature_data;`);
      this.copied = true;
    }
    const own = !this.readOnly && !this.inTransaction;
    if (own) this.begin();
    this.statement(
      `INSERT INTO features (name, due, unless) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET due = excluded.due, unless = excluded.unless`,
    ).run(feature, due, unless);
    this.statement(
      `UPDATE feature_data AS f SET open = ${DECLARED.open}, due = ${DECLARED.due}, done = ${DECLARED.done}
         FROM features AS k WHERE k.n = f.feature AND k.name = ?1`,
    ).run(feature);
    if (own) this.commit();
  }

  /** A prepared statement of this connection, made once. */
  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  setMeta(key: string, value: Json): void {
    this.rows("meta").set(key, value);
  }

  /** Opens the transaction the next changes go into (they are durable at `commit`). */
  begin(): void {
    if (this.inTransaction) return;
    if (this.readOnly) throw new StateError("state_write_failed", "the state was opened read-only");
    this.database.exec("BEGIN IMMEDIATE");
    this.inTransaction = true;
  }

  /** Commits the open transaction, if any: durable when this returns (WAL, synchronous=FULL). */
  commit(): void {
    if (!this.inTransaction) return;
    try {
      this.database.exec("COMMIT");
    } catch (err) {
      if (this.database.isTransaction) this.database.exec("ROLLBACK");
      throw err;
    } finally {
      this.inTransaction = false;
    }
  }

  close(): void {
    // What was not committed is dropped, as a crash would drop it.
    if (this.inTransaction && this.database.isTransaction) this.database.exec("ROLLBACK");
    this.inTransaction = false;
    this.database.close();
  }
}

/** The time columns of every row of the feature named `?1`, when its slice time is (re)declared. */
const DECLARED = timeColumns("f.value", "f.subject");

function connect(file: string, readOnly: boolean): Database {
  const { DatabaseSync } = sqlite();
  const database = new DatabaseSync(file, { readOnly });
  // Wait for a checkpoint or another reader's brief lock rather than fail at once.
  database.exec("PRAGMA busy_timeout = 5000");
  // A rollback to an older threatbridge must not read (or write) tables whose layout it does not know;
  // an older layout is upgraded before the store opens it (src/state-import/layouts.ts).
  const row = database.prepare("PRAGMA user_version").get() as { user_version?: unknown } | undefined;
  const version = typeof row?.user_version === "number" ? row.user_version : 0;
  if (version > SCHEMA_VERSION) {
    database.close();
    throw new StateError(
      "state_too_new",
      `state database ${file} was written by a newer threatbridge (state version ${version}; ` +
        `this one knows up to ${SCHEMA_VERSION}): upgrade threatbridge to use it`,
      { file },
    );
  }
  if (version > 0 && version < SCHEMA_VERSION) {
    database.close();
    throw new StateError(
      "state_too_old",
      `state database ${file} has an older layout (state version ${version}; this threatbridge ` +
        `writes ${SCHEMA_VERSION}): run \`threatbridge sync\` once (it upgrades the file in place), then read it`,
      { file },
    );
  }
  if (!readOnly) {
    database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA synchronous = FULL");
    database.exec(SCHEMA);
    if (version === 0) database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  }
  return database;
}

/** Opens the database at `file`, created with its layout when opened to write (`":memory:"`: none on disk). */
export function openDatabase(file: string, readOnly: boolean): Db {
  return new Db(connect(file, readOnly), readOnly);
}
