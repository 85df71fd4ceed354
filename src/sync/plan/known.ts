/**
 * What the connector knows of something on the other side: present, gone (404), or not read. A
 * planner that took "not read" for "gone" would close a live threat's issue.
 */
export type Known<T> = { kind: "present"; value: T } | { kind: "gone" } | { kind: "unknown" };

export function present<T>(value: T): Known<T> {
  return { kind: "present", value };
}

export const gone: Known<never> = { kind: "gone" };
export const notRead: Known<never> = { kind: "unknown" };
