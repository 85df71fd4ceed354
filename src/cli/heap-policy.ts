import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old heap grow past what a full collection left live. By default V8 picks a
 * factor of up to 4 when allocation is fast, and a stream walk allocates fast while keeping
 * little: the heap grows to several times what is live. A factor of 1.5 keeps the process's peak
 * close to its live data at the same speed (docs/benchmarks-history.md, "Peak RSS").
 * `--heap-growing-percent` is read by V8 each time it sets the next
 * limit, so setting it here, before any work, takes effect; NODE_OPTIONS cannot carry it.
 *
 * THREATBRIDGE_HEAP_GROWING_PERCENT overrides the percent; 0 leaves V8's own choice.
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 50;

export function heapGrowingPercent(env: NodeJS.ProcessEnv): number {
  const raw = env["THREATBRIDGE_HEAP_GROWING_PERCENT"];
  if (raw === undefined || raw.trim() === "") return DEFAULT_HEAP_GROWING_PERCENT;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 && value <= 1_000 ? value : DEFAULT_HEAP_GROWING_PERCENT;
}

/** Applies the percent to this process's V8 (once, at start); returns what was applied. */
export function applyHeapPolicy(env: NodeJS.ProcessEnv, setFlags = setFlagsFromString): number {
  const percent = heapGrowingPercent(env);
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
  return percent;
}
