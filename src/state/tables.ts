/**
 * The database's tables (database.ts reads and writes them; threat-queries.ts asks its questions
 * of them). Every collection is a table `(id, value)`, the value the row's JSON text.
 *
 * `threats` also has virtual columns (computed from the JSON when read or indexed, never stored) for
 * what the engine looks a threat up by or counts: its asset, its issue's repository and number, whether the issue is open, whether the threat is
 * gone, whether it counts as open (an open issue, not gone), whether `status` lists it (`special`).
 *
 * `feature_data (feature, subject, value)` holds each feature's data on a subject (a threat's id or
 * a group's key). A feature that declares where its slice keeps a time (threat-queries.ts
 * `SliceTime`) has it in `slice_features` (`due`, `unless`: JSON paths); for its rows `due` (epoch
 * ms), `done` (the `unless` key is set) and `open` (the subject counts as open) are written with the
 * slice, so that a feature's earliest due and its counts are index seeks. `slice_features` lists
 * every feature that ever wrote a slice: a subject's slices are read through it, one seek a feature.
 */

/** The tables' layout this threatbridge writes (SQLite's `user_version`); a later one may differ. */
export const SCHEMA_VERSION = 2;

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

/** The tables and indexes, created where missing. */
export const SCHEMA = `
${Object.values(TABLES)
  .map((table) =>
    table === "threats"
      ? `CREATE TABLE IF NOT EXISTS threats (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, ${THREAT_COLUMNS.map(virtual).join(", ")});`
      : `CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);`,
  )
  .join("\n")}
CREATE TABLE IF NOT EXISTS meta (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feature_data (
  feature TEXT NOT NULL, subject TEXT NOT NULL, value TEXT NOT NULL, ${TIME_COLUMNS.join(", ")},
  PRIMARY KEY (feature, subject)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS slice_features (feature TEXT PRIMARY KEY NOT NULL, due TEXT, unless TEXT) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS threats_by_issue ON threats (repo, number, issue_open) WHERE repo IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_by_asset ON threats (asset) WHERE asset IS NOT NULL;
CREATE INDEX IF NOT EXISTS threats_special ON threats (special) WHERE special;
CREATE INDEX IF NOT EXISTS feature_data_due ON feature_data (feature, open, done, due) WHERE due IS NOT NULL;
`;

/**
 * From the layout of version 1 (no virtual columns, no time columns, an index of feature_data by
 * subject) to this one; SCHEMA then adds what is missing. Run in the transaction that sets the version.
 */
export const FROM_VERSION_1 = `
${THREAT_COLUMNS.map((column) => `ALTER TABLE threats ADD COLUMN ${virtual(column)};`).join("\n")}
${TIME_COLUMNS.map((column) => `ALTER TABLE feature_data ADD COLUMN ${column};`).join("\n")}
DROP INDEX IF EXISTS feature_data_by_subject;
DROP INDEX IF EXISTS threats_by_issue;
CREATE TABLE IF NOT EXISTS slice_features (feature TEXT PRIMARY KEY NOT NULL, due TEXT, unless TEXT) WITHOUT ROWID;
INSERT OR IGNORE INTO slice_features (feature) SELECT DISTINCT feature FROM feature_data;
`;

/**
 * The time columns of a `feature_data` row, as SQL over its `value` and `subject` and the feature's
 * `slice_features` row `k` (NULL when the feature keeps no time): the time at `k.due` as epoch ms
 * (NULL when missing or not a time), whether `k.unless` is set, whether the subject counts as open.
 */
export function timeColumns(value: string, subject: string): { open: string; due: string; done: string } {
  const timed = (expression: string): string =>
    `CASE WHEN k.due IS NOT NULL AND json_valid(${value}) THEN ${expression} END`;
  return {
    open: timed(`coalesce((SELECT t.open FROM threats AS t WHERE t.id = ${subject}), 0)`),
    due: timed(`CAST(round(unixepoch(json_extract(${value}, k.due), 'subsec') * 1000) AS INTEGER)`),
    done: timed(`json_extract(${value}, k.unless) IS NOT NULL`),
  };
}
