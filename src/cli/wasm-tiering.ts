import { setFlagsFromString } from "node:v8";

/**
 * undici parses HTTP with llhttp compiled to WebAssembly (Node's fetch, which the GitHub client
 * uses, and the undici package, which the platform client uses, each load it). V8 runs WebAssembly
 * with its baseline compiler and compiles the functions it finds hot again with its optimizing
 * compiler on a background thread; a second GitHub request in a cycle (the notes' comment listing)
 * was enough to start that compile, whose compiler memory the process kept to its end, a large
 * share of an idle `sync`'s peak (docs/benchmarks-history.md) for parsing a few kilobytes of HTTP. A large tiering
 * budget keeps the baseline code unless a parser function is really hot (a daemon's still may be
 * optimized after much traffic). Set before any request, like the heap policy (heap-policy.ts).
 *
 * THREATBRIDGE_WASM_TIERING_BUDGET overrides the budget; 0 leaves V8's own.
 */
export const DEFAULT_WASM_TIERING_BUDGET = 1_000_000_000;

export function wasmTieringBudget(env: NodeJS.ProcessEnv): number {
  const raw = env["THREATBRIDGE_WASM_TIERING_BUDGET"];
  if (raw === undefined || raw.trim() === "") return DEFAULT_WASM_TIERING_BUDGET;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value >= 0 && value <= 2 ** 31 - 1
    ? value
    : DEFAULT_WASM_TIERING_BUDGET;
}

/** Applies the budget to this process's V8 (once, at start); returns what was applied (0: none). */
export function applyWasmTiering(env: NodeJS.ProcessEnv, setFlags = setFlagsFromString): number {
  const budget = wasmTieringBudget(env);
  if (budget > 0) setFlags(`--wasm-tiering-budget=${budget}`);
  return budget;
}
