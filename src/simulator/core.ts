import type { AsyncWrites } from "./async-writes.js";
import type { CursorCodec } from "./cursors.js";
import type { Faults } from "./faults.js";
import type { SimStore } from "./store.js";
import type { TokenRegistry } from "./tokens.js";

/** Counters for tests and `GET /_sim/state`. */
export interface Counters {
  tokenRequests: number;
  requests: number;
  byRoute: Map<string, number>;
}

/** The parts every handler shares; one per running simulator. */
export interface SimCore {
  store: SimStore;
  cursors: CursorCodec;
  faults: Faults;
  writes: AsyncWrites;
  tokens: TokenRegistry;
  counters: Counters;
  /** The spec's `{base_url}`, known once the server listens. */
  baseUrl(): string;
}
