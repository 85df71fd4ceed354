import { isRecord } from "./json.js";

/**
 * Output keys as a user reads them: snake_case throughout (contract, "Logs": `duration_ms`), in
 * `status --json` and `sync --json` as in the logs. The program's own camelCase names are
 * converted; the keys of maps keyed by data (repositories, action and severity names, counter
 * names: `dataMaps`, by the key that holds them) are values, not names, and stay as they are.
 */
export function snakeKeys(value: unknown, dataMaps: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item, dataMaps));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[snakeCase(key)] = dataMaps.has(key) ? item : snakeKeys(item, dataMaps);
  }
  return out;
}

/**
 * The converted keys: a report repeats the same few names once per listed item (`status --json`
 * lists every acceptance, 1,000 and more, each with the same five keys), and two regular
 * expressions per key cost that command about 8 ms at 1,000 acceptances. Bounded: the keys are
 * the program's names, but nothing stops a caller's data from reaching here as keys.
 */
const converted = new Map<string, string>();
const CONVERTED_MAX = 4096;

/** `etaSeconds` → `eta_seconds`, `dueWithin7Days` → `due_within_7_days`; snake_case stays. */
export function snakeCase(key: string): string {
  let snake = converted.get(key);
  if (snake !== undefined) return snake;
  snake = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([a-z])([0-9])/g, "$1_$2")
    .toLowerCase();
  if (converted.size < CONVERTED_MAX) converted.set(key, snake);
  return snake;
}

/** The keys of the outputs' maps keyed by data: repositories, action, severity and counter names. */
export const DATA_MAPS: ReadonlySet<string> = new Set([
  "byRepository",
  "byAction",
  "bySeverity",
  "counts",
  "counters",
]);
