/** Present, gone (404), or not read: a planner that took "not read" for "gone" would close a live issue. */
export type Known<T> = { kind: "present"; value: T } | { kind: "gone" } | { kind: "unknown" };

export function present<T>(value: T): Known<T> {
  return { kind: "present", value };
}

export const gone: Known<never> = { kind: "gone" };
export const notRead: Known<never> = { kind: "unknown" };
