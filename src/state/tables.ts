/**
 * The database's tables (src/state/README-store.md, "Tables", says what each holds and why). The
 * layout is written whole from these definitions; a change to them is a new SCHEMA_VERSION, with
 * its upgrade from the last in src/state-import/layouts.ts.
 */

/** The tables' layout this threatbridge writes (SQLite's `user_version`); a later one may differ. */
export const SCHEMA_VERSION = 4;

/** The collections the engine names, and their tables. */
export const TABLES: Readonly<Record<string, string>> = {
  threats: "threats",
  assets: "assets",
  queue: "queue",
  intents: "intents",
  retryThreats: "retry_threats",
  retryAssets: "retry_assets",
  groups: "groups",
};

/**
 * A field of a stored value kept in a column of its own: its key path, whether an integer (else a
 * text), and the table of its texts (`names`: the column holds the text's `n` there). A value whose
 * field is missing or of another type keeps it in its JSON, the column NULL.
 */
export interface Field {
  column: string;
  path: readonly [string] | readonly [string, string];
  integer?: true;
  names?: { table: string; column: string };
}

const [REPOS, ASSET_IDS] = [
  { table: "repos", column: "name" },
  { table: "asset_ids", column: "id" },
];

/** The collections whose values have fields in columns (the engine's threat record, src/sync/schema.ts). */
export const FIELDS: Readonly<Record<string, readonly Field[]>> = {
  threats: [
    { column: "status", path: ["status"] },
    { column: "severity", path: ["severity"], integer: true },
    { column: "asset", path: ["assetId"], names: ASSET_IDS },
    { column: "updated_at", path: ["updatedAt"] },
    { column: "repo", path: ["issue", "repo"], names: REPOS },
    { column: "number", path: ["issue", "number"], integer: true },
    { column: "issue_state", path: ["issue", "state"] },
    { column: "url", path: ["issue", "url"] },
    { column: "hash", path: ["issue", "hash"] },
    { column: "link", path: ["link"] },
  ],
};

/** `threats`' virtual columns: name, type, expression (later ones may name earlier ones). */
const THREAT_COLUMNS: readonly (readonly [string, string, string])[] = [
  ["issue_open", "INTEGER", "coalesce(issue_state = 'open', 0)"],
  ["gone", "INTEGER", "coalesce(value ->> '$.gone', 0) <> 0"],
  ["open", "INTEGER", "issue_open AND NOT gone"],
  [
    "special",
    "INTEGER",
    "gone OR value ->> '$.refused' IS NOT NULL OR value ->> '$.deletedIssue' IS NOT NULL",
  ],
];

const virtual = ([name, type, expression]: readonly [string, string, string]): string =>
  `${name} ${type} GENERATED ALWAYS AS (${expression}) VIRTUAL`;

/** The columns `feature_data` has beside (feature, subject, value) for a timed feature's rows. */
const TIME_COLUMNS: readonly string[] = ["open INTEGER", "due INTEGER", "done INTEGER"];

/** The columns of a table whose rows have features' data: `n` (the rowid, kept by a VACUUM) names a row there. */
const NUMBERED = "n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, value TEXT NOT NULL";

/** The features' tables and the index of their times, in the database `schema` (main or temp). */
export function featureTables(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${schema}.feature_data (
  feature INTEGER NOT NULL, subject INTEGER NOT NULL, value TEXT NOT NULL, ${TIME_COLUMNS.join(", ")},
  PRIMARY KEY (feature, subject)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ${schema}.features (n INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, due TEXT, unless TEXT);
CREATE INDEX IF NOT EXISTS ${schema}.feature_data_due ON feature_data (feature, open, done, due) WHERE due IS NOT NULL;`;
}

/** The columns of `threats` beside NUMBERED: its fields', then its virtual ones. */
const THREAT_TABLE = [
  NUMBERED,
  ...(FIELDS["threats"] ?? []).map((f) => `${f.column} ${f.integer || f.names ? "INTEGER" : "TEXT"}`),
  ...THREAT_COLUMNS.map(virtual),
];

/** The tables and indexes, created where missing. */
export const SCHEMA = `
${Object.values(TABLES)
  .map((table) =>
    table === "threats" || table === "groups"
      ? `CREATE TABLE IF NOT EXISTS ${table} (${table === "threats" ? THREAT_TABLE : NUMBERED});`
      : `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);`,
  )
  .join("\n")}
CREATE TABLE IF NOT EXISTS meta (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
${[REPOS, ASSET_IDS].map((t) => `CREATE TABLE IF NOT EXISTS ${t.table} (n INTEGER PRIMARY KEY, ${t.column} TEXT NOT NULL UNIQUE);`).join("\n")}
${featureTables("main")}
CREATE INDEX IF NOT EXISTS threats_by_issue ON threats (repo, number, issue_open) WHERE repo IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_by_asset ON threats (asset) WHERE asset IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_special ON threats (special) WHERE special;
`;

/**
 * The time columns of a `feature_data` row, as SQL over its `value` and `subject` and the feature's
 * `features` row `k` (NULL when the feature keeps no time): the time at `k.due` as epoch ms
 * (NULL when missing or not a time), whether `k.unless` is set, whether the subject counts as open.
 */
export function timeColumns(value: string, subject: string): { open: string; due: string; done: string } {
  const timed = (expression: string): string =>
    `CASE WHEN k.due IS NOT NULL AND json_valid(${value}) THEN ${expression} END`;
  return {
    open: timed(`coalesce((SELECT t.open FROM threats AS t WHERE t.n = ${subject}), 0)`),
    due: timed(`CAST(round(unixepoch(json_extract(${value}, k.due), 'subsec') * 1000) AS INTEGER)`),
    done: timed(`json_extract(${value}, k.unless) IS NOT NULL`),
  };
}
