import { sqlite } from "../state/sqlite.js";
import { FIELDS, SCHEMA, SCHEMA_VERSION, timeColumns, type Field } from "../state/tables.js";

/**
 * The database's older layouts (src/state/tables.ts `SCHEMA_VERSION`), copied into today's on the
 * first writable open, before the store opens it (which reads only today's): in one transaction
 * that sets the version, so a crash or a failure leaves the old layout whole; then vacuumed.
 * Layouts 1 and 2 keyed the features' data by text; layout 3 kept a threat's fields in its JSON.
 */
export function upgradeLayout(file: string): void {
  const { DatabaseSync } = sqlite();
  const database = new DatabaseSync(file);
  try {
    database.exec("PRAGMA busy_timeout = 5000");
    const row = database.prepare("PRAGMA user_version").get();
    const version = typeof row?.["user_version"] === "number" ? row["user_version"] : 0;
    if (version === 0 || version >= SCHEMA_VERSION) return;
    database.exec("PRAGMA journal_mode = WAL");
    database.exec("PRAGMA synchronous = FULL");
    database.exec("BEGIN IMMEDIATE");
    try {
      database.exec(version < 3 ? FROM_TEXT_KEYS : FROM_LAYOUT_3);
      database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      database.exec("COMMIT");
    } catch (err) {
      if (database.isTransaction) database.exec("ROLLBACK");
      throw err;
    }
    // The old tables' pages, free now, go back to the disk. The upgrade is committed: a VACUUM
    // that fails (it needs room for a copy of the file) leaves a larger file, not a broken one.
    try {
      database.exec("VACUUM");
    } catch {
      // Later writes reuse the free pages.
    }
  } finally {
    database.close();
  }
}

/** A field's JSON path (`$.issue.repo`). */
const jsonPath = (field: Field): string => `$.${field.path.join(".")}`;

/** A field's value in the JSON text `json`, NULL when missing or of another type (kept in the JSON). */
function typedOf(field: Field, json: string): string {
  const path = `'${jsonPath(field)}'`;
  // An integer as the store's writes take it (Number.isSafeInteger): a larger one stays in the JSON.
  const integer = `json_type(${json}, ${path}) = 'integer' AND (${json} ->> ${path}) BETWEEN -9007199254740991 AND 9007199254740991`;
  const typed = field.integer ? integer : `json_type(${json}, ${path}) = 'text'`;
  return `CASE WHEN ${typed} THEN ${json} ->> ${path} END`;
}

/** A field's value as its column holds it (the `n` of its text in `names`' table). */
function columnOf(field: Field, json: string): string {
  const typed = typedOf(field, json);
  return field.names ? `(SELECT n FROM ${field.names.table} WHERE ${field.names.column} = ${typed})` : typed;
}

/**
 * The rows of `from` (n, id, value: the JSON of a whole threat) copied into `threats`: each field
 * in its column (its text in `names`' table first), taken out of the JSON where it was (an object
 * it leaves empty with it).
 */
function copyThreats(from: string): string {
  const fields = FIELDS["threats"] ?? [];
  let rest = `(SELECT n, id, value, value AS r FROM ${from})`;
  for (const f of fields)
    rest = `(SELECT n, id, value, CASE WHEN ${typedOf(f, "value")} IS NULL THEN r
      ELSE json_remove(r, '${jsonPath(f)}') END AS r FROM ${rest})`;
  const emptied = (r: string, key: string): string =>
    `CASE WHEN ${r} -> '$.${key}' = '{}' AND value -> '$.${key}' <> '{}' THEN json_remove(${r}, '$.${key}') ELSE ${r} END`;
  const parents = [...new Set(fields.filter((f) => f.path.length > 1).map((f) => f.path[0]))];
  const names = fields.flatMap((f) =>
    f.names
      ? [
          `INSERT OR IGNORE INTO ${f.names.table} (${f.names.column})
           SELECT ${typedOf(f, "value")} AS v FROM ${from} WHERE v IS NOT NULL;`,
        ]
      : [],
  );
  return `${names.join("\n")}
INSERT INTO threats (n, id, value, ${fields.map((f) => f.column).join(", ")})
  SELECT n, id, ${parents.reduce(emptied, "r")}, ${fields.map((f) => columnOf(f, "value")).join(", ")}
  FROM ${rest} ORDER BY n;`;
}

/** From layout 3 (a threat's fields in its JSON) to this one: `threats` copied into its new layout. */
const FROM_LAYOUT_3 = `
DROP INDEX IF EXISTS threats_by_issue; DROP INDEX IF EXISTS threats_by_asset; DROP INDEX IF EXISTS threats_special;
ALTER TABLE threats RENAME TO old_threats;
${SCHEMA}
${copyThreats("old_threats")}
DROP TABLE old_threats;
`;

/**
 * From the layout of version 1 or 2 (threats, groups and feature_data keyed by text; version 1 had
 * no time columns and no `slice_features`) to this one, in the transaction that sets the version:
 * the old tables renamed, SCHEMA made, their rows copied (a slice's time columns computed again)
 * and the old tables dropped; an intent's `occurrence` is now `markerNumber`.
 */
const FROM_TEXT_KEYS = `
DROP INDEX IF EXISTS feature_data_by_subject; DROP INDEX IF EXISTS feature_data_due;
DROP INDEX IF EXISTS threats_by_issue; DROP INDEX IF EXISTS threats_by_asset; DROP INDEX IF EXISTS threats_special;
CREATE TABLE IF NOT EXISTS slice_features (feature TEXT PRIMARY KEY NOT NULL, due TEXT, unless TEXT);
ALTER TABLE threats RENAME TO old_threats; ALTER TABLE feature_data RENAME TO old_feature_data;
CREATE TABLE IF NOT EXISTS groups (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
ALTER TABLE groups RENAME TO old_groups;
${SCHEMA}
${copyThreats("(SELECT rowid AS n, id, value FROM old_threats)")}
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
