import type { Json } from "../../state/index.js";

/**
 * An engine value as the JSON the store keeps, as `JSON.stringify` would write it: members that
 * are undefined are left out, an undefined array cell or a non-finite number is null. A direct
 * copy, so that a write does not pay a stringify, a parse and a schema pass.
 */
export function toJson(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  // As JSON writes it: -0 is 0, a non-finite number null.
  if (typeof value === "number") return Number.isFinite(value) ? value + 0 : null;
  if (Array.isArray(value)) return value.map((cell) => toJson(cell));
  if (typeof value === "object") {
    // fromEntries defines own members, so a key "__proto__" (valid JSON) stays a member.
    return Object.fromEntries(
      Object.entries(value).flatMap(([key, member]) => (member === undefined ? [] : [[key, toJson(member)]])),
    );
  }
  throw new TypeError(`a ${typeof value} cannot be stored as JSON`);
}
