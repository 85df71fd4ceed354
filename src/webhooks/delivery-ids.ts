/** Recent delivery ids, so a re-delivery is ignored; bounded by `capacity`, oldest forgotten first. */
export interface DeliveryIds {
  /** Records `id`; answers false when it was already recorded. */
  add(id: string): boolean;
  size(): number;
}

export function deliveryIds(capacity: number): DeliveryIds {
  // A Set iterates in insertion order: its first value is the oldest.
  const seen = new Set<string>();
  return {
    add(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > capacity) {
        const oldest = seen.values().next();
        if (oldest.done !== true) seen.delete(oldest.value);
      }
      return true;
    },
    size: () => seen.size,
  };
}
