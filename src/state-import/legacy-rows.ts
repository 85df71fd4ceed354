/** Plain JSON (state/database.ts `Json`, repeated: that file imports this folder). */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The threat rows of the store before SQLite (as this folder reads them) in today's shape: the
 * workflow features kept their data on the record, and each feature now keeps it as its own slice
 * (`feature_data`). Field → the feature's slice and the key it is under there (null: the slice is
 * the value itself), as each feature reads its slice (src/sync/features/<feature>/slice.ts).
 */
const MOVED: Readonly<Record<string, readonly [feature: string, key: string | null]>> = {
  sla: ["sla", null],
  acceptance: ["acceptance", "held"],
  acceptanceSought: ["acceptance", "sought"],
  occurrence: ["recurrence", "occurrence"],
  recurredFrom: ["recurrence", "from"],
};

type JsonObject = { [key: string]: Json };
const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A legacy threat row with its features' fields moved into `slices` (a row without any: as it is). */
export function legacyThreatRow(value: Json): Json {
  if (!isObject(value) || !Object.keys(MOVED).some((field) => field in value)) return value;
  const row: JsonObject = {};
  const parts: Record<string, JsonObject | Json> = {};
  for (const [field, v] of Object.entries(value)) {
    const moved = MOVED[field];
    if (moved === undefined) row[field] = v;
    else if (moved[1] === null) parts[moved[0]] = v;
    else {
      const part = parts[moved[0]];
      parts[moved[0]] = { ...(isObject(part) ? part : {}), [moved[1]]: v };
    }
  }
  const slices: JsonObject = isObject(value["slices"]) ? { ...value["slices"] } : {};
  for (const [feature, part] of Object.entries(parts)) slices[feature] = JSON.stringify(part);
  return { ...row, slices };
}

/** A legacy intent in today's shape: `occurrence` is `markerNumber` now (a `markerNumber` it has wins). */
export function legacyIntentRow(value: Json): Json {
  if (!isObject(value) || !("occurrence" in value)) return value;
  const { occurrence, ...rest } = value;
  return "markerNumber" in rest ? rest : { ...rest, markerNumber: occurrence ?? null };
}
