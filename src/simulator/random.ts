/** Seeded randomness (mulberry32): the same seed gives the same data, faults and scans. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A random RFC 4122 version 4 UUID, lower case. */
  uuid(): string;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function hex8(word: number): string {
  return (
    (HEX[(word >>> 24) & 0xff] ?? "") +
    (HEX[(word >>> 16) & 0xff] ?? "") +
    (HEX[(word >>> 8) & 0xff] ?? "") +
    (HEX[word & 0xff] ?? "")
  );
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const word = (): number => Math.floor(next() * 4294967296) >>> 0;
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError("pick from an empty list");
      return item;
    },
    uuid: () => {
      const a = hex8(word());
      // Version nibble 4 and variant bits 10xx make it a valid v4 UUID.
      const b = hex8(((word() & 0xffff0fff) | 0x00004000) >>> 0);
      const c = hex8(((word() & 0x3fffffff) | 0x80000000) >>> 0);
      const d = hex8(word());
      return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
    },
  };
}
