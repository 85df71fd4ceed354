import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * How far V8 lets the old heap grow past what a full collection left live. By default V8 picks a
 * factor of up to 4 when allocation is fast, and a stream walk allocates fast while keeping
 * little: at 200,000 streamed threats the live heap stays at 30–40 MB while the heap grew to
 * 200 MB and the process to 300 MB. A factor of 1.5 keeps it at about 195 MB in the same time
 * (docs/benchmarks-history.md, "Peak RSS"). `--heap-growing-percent` is read by V8 each time it sets the next
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

/** A state of at least this many threats is collected after its load (a smaller one's garbage is small). */
export const COLLECT_FROM_THREATS = 10_000;

/**
 * One full collection once a large state is loaded and the engine assembled (openEngine: `sync`,
 * `run`, `reconcile`), unless the policy is off (THREATBRIDGE_HEAP_GROWING_PERCENT=0). The
 * snapshot's text and the document parsed from it are garbage by then (~30 MB at 100,000
 * threats), but V8 keeps them until the heap reaches the limit it set at its last collection, and
 * where that collection fell during the parse (the document live), the limit left room for all
 * of it: an idle `sync` of 100,000 threats with every feature on peaked at ~200 MB RSS, ~175 MB
 * with this collection (~10 ms of CPU; docs/benchmarks-history.md). Node gives `gc` only under
 * --expose-gc, which a CLI's users do not pass: the flag is set here and the function taken from a
 * new context, where V8 installs it. Answers whether it ran; where that does not work, nothing.
 */
export function collectAfterLoad(
  env: NodeJS.ProcessEnv,
  threats: number,
  setFlags = setFlagsFromString,
): boolean {
  if (heapGrowingPercent(env) === 0 || threats < COLLECT_FROM_THREATS) return false;
  try {
    setFlags("--expose-gc");
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
    if (typeof gc !== "function") return false;
    gc();
    return true;
  } catch {
    return false;
  }
}
