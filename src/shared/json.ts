/** Narrowing helpers for JSON values whose shape a schema does not fix. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
