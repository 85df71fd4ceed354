/**
 * The ids of recent deliveries (`X-GitHub-Delivery`), so that a re-delivery (GitHub's "Redeliver",
 * or a replay of a captured request) is answered and ignored. Bounded: past `capacity` ids the
 * oldest is forgotten, so memory stays flat however long `run` runs; a replay older than that is
 * absorbed like any delivery, which reads the issue and changes nothing that is already recorded.
 */
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
