/**
 * What the connector knows about something on the other side: it is there (with
 * its value), it is gone (the API answered 404), or it was not read. `null` used to mean both of
 * the last two; a planner that took "not read" for "gone" would close the issue of a live threat.
 */
export type Known<T> = { kind: "present"; value: T } | { kind: "gone" } | { kind: "unknown" };

export function present<T>(value: T): Known<T> {
  return { kind: "present", value };
}

export const gone: Known<never> = { kind: "gone" };
export const notRead: Known<never> = { kind: "unknown" };
