import { deepFreeze } from "../../shared/deep-freeze.js";
import type { EngineState } from "./threat-records.js";

/**
 * Proof that the engine never mutates its state in place: with `freeze` on,
 * every value put into the state is deep-frozen and the state's containers refuse any write made
 * outside `open()` (which only state-updates.ts calls). Off in production: it costs a copy-free
 * but non-trivial walk of every value.
 */
export interface StateGuard {
  readonly enabled: boolean;
  /** Runs `write` with the containers writable. */
  open(write: () => void): void;
  /** The value, deep-frozen when the guard is on. */
  freeze<T>(value: T): T;
  /** The state with guarded containers and frozen values (the state itself when off). */
  wrap(state: EngineState): EngineState;
}

export function createStateGuard(enabled: boolean): StateGuard {
  let opened = 0;
  const refuse = (what: string, property: string | symbol): never => {
    throw new TypeError(
      `state mutated in place (${what} ${String(property)}): use src/sync/records/state-updates.ts`,
    );
  };
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      set: (t, p, v) => (opened > 0 ? Reflect.set(t, p, v) : refuse("set", p)),
      deleteProperty: (t, p) => (opened > 0 ? Reflect.deleteProperty(t, p) : refuse("delete", p)),
      defineProperty: (t, p, d) => (opened > 0 ? Reflect.defineProperty(t, p, d) : refuse("define", p)),
    });
  if (!enabled) {
    return { enabled, open: (write) => write(), freeze: (v) => v, wrap: (s) => s };
  }
  return {
    enabled,
    open(write) {
      opened += 1;
      try {
        write();
      } finally {
        opened -= 1;
      }
    },
    freeze: deepFreeze,
    wrap(state) {
      const frozenValues = <V>(record: Record<string, V>): Record<string, V> => {
        for (const v of Object.values(record)) deepFreeze(v);
        return guard(record);
      };
      return guard({
        ...state,
        cursors: deepFreeze(state.cursors),
        ...(state.cursorRefused ? { cursorRefused: deepFreeze(state.cursorRefused) } : {}),
        github: deepFreeze(state.github),
        lastCycle: deepFreeze(state.lastCycle),
        assets: frozenValues(state.assets),
        // Read through its view, which deep-freezes every record it returns (threat-records.ts).
        threats: state.threats,
        queue: frozenValues(state.queue),
        intents: frozenValues(state.intents),
        groups: frozenValues(state.groups ?? {}),
        retry: guard({
          threats: frozenValues(state.retry.threats),
          assets: frozenValues(state.retry.assets),
        }),
      });
    },
  };
}
