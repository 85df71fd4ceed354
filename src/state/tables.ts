/**
 * The database's tables (src/state/README-store.md, "Tables"). Every collection is a table
 * `(id, value)`, the value the row's JSON text; `threats` and `groups` also have `n`, the rowid by
 * which `feature_data` names a row, and `threats` has virtual columns (computed from the JSON, never
 * stored) for what the engine looks a threat up by or counts. `feature_data (feature, subject,
 * value)` holds each feature's data on a subject: the feature's `n` in `features`, a threat's `n`
 * or a group's `n` negated. A feature that declares where its slice keeps a time (`SliceTime`) has
 * the JSON paths in `features`, and its rows' `due` (epoch ms), `done` (the `unless` key is set)
 * and `open` (the subject counts as open) columns are written with the slice: its earliest due and
 * its counts are index seeks.
 */

/** The tables' layout this threatbridge writes (SQLite's `user_version`); a later one may differ. */
export const SCHEMA_VERSION = 3;

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

/** `threats`' virtual columns: name, type, expression (later ones may name earlier ones). */
const THREAT_COLUMNS: readonly (readonly [string, string, string])[] = [
  ["asset", "TEXT", "value ->> '$.assetId'"],
  ["repo", "TEXT", "value ->> '$.issue.repo'"],
  ["number", "INTEGER", "value ->> '$.issue.number'"],
  ["issue_open", "INTEGER", "coalesce(value ->> '$.issue.state' = 'open', 0)"],
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

/** The tables and indexes, created where missing. */
export const SCHEMA = `
${Object.values(TABLES)
  .map((table) =>
    table === "threats" || table === "groups"
      ? `CREATE TABLE IF NOT EXISTS ${table} (${[NUMBERED, ...(table === "threats" ? THREAT_COLUMNS.map(virtual) : [])]});`
      : `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);`,
  )
  .join("\n")}
CREATE TABLE IF NOT EXISTS meta (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
${featureTables("main")}
CREATE INDEX IF NOT EXISTS threats_by_issue ON threats (repo, number, issue_open) WHERE repo IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_by_asset ON threats (asset) WHERE asset IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_special ON threats (special) WHERE special;
`;

/**
 * From the layout of version 1 or 2 (threats, groups and feature_data keyed by text; version 1 had
 * no time columns and no `slice_features`) to this one, in the transaction that sets the version:
 * the old tables renamed, SCHEMA made, their rows copied (a slice's time columns computed again)
 * and the old tables dropped; an intent's `occurrence` is now `markerNumber`.
 */
export const FROM_TEXT_KEYS = `
DROP INDEX IF EXISTS feature_data_by_subject; DROP INDEX IF EXISTS feature_data_due;
DROP INDEX IF EXISTS threats_by_issue; DROP INDEX IF EXISTS threats_by_asset; DROP INDEX IF EXISTS threats_special;
CREATE TABLE IF NOT EXISTS slice_features (feature TEXT PRIMARY KEY NOT NULL, due TEXT, unless TEXT);
ALTER TABLE threats RENAME TO old_threats; ALTER TABLE feature_data RENAME TO old_feature_data;
CREATE TABLE IF NOT EXISTS groups (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
ALTER TABLE groups RENAME TO old_groups;
${SCHEMA}
INSERT INTO threats (n, id, value) SELECT rowid, id, value FROM old_threats ORDER BY rowid;
INSERT INTO groups (n, id, value) SELECT rowid, id, value FROM old_groups ORDER BY rowid;
INSERT INTO features (name, due, unless) SELECT feature, due, unless FROM slice_features;
INSERT OR IGNORE INTO features (name) SELECT DISTINCT feature FROM old_feature_data;
INSERT INTO feature_data (feature, subject, value, open, due, done)
  SELECT k.n, s.n, f.value, ${Object.values(timeColumns("f.value", "s.n")).join(", ")}
  FROM old_feature_data AS f JOIN features AS k ON k.name = f.feature
  JOIN (SELECT n, id FROM threats UNION ALL SELECT -n, id FROM groups) AS s ON s.id = f.subject
  ORDER BY k.n, s.n;
DROP TABLE old_threats; DROP TABLE old_groups; DROP TABLE old_feature_data; DROP TABLE slice_features;
UPDATE intents SET value = json_remove(CASE WHEN json_type(value, '$.markerNumber') IS NULL
    THEN json_set(value, '$.markerNumber', json(value -> '$.occurrence')) ELSE value END, '$.occurrence')
  WHERE json_type(value, '$.occurrence') IS NOT NULL;
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
