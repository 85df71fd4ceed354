export { importLegacyState, type ImportTarget } from "./legacy-import.js";
export { legacyThreatRow } from "./legacy-rows.js";
export { importIntoDatabase, openStateImporting } from "./open.js";
