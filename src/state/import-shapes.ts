/**
 * Types for src/state-import/ only (deleted with it): the store before SQLite kept two workflow
 * fields on the threat's record, and the importer's compile-time lists name them. The engine's
 * record has no such field (`never`: none can be set); the import's rows are moved into
 * `feature_data` as they are written (legacy-rows.ts).
 */

/** The SLA as the store before SQLite held it on the record. */
export interface SlaRecord {
  since: string;
  due: string;
  breach?: "added" | "removed";
  milestone?: string;
}

/** The names the importer checks against the record's keys; no record carries them. */
export interface ImportedShape {
  sla?: never;
  occurrence?: never;
}
