import { PlatformError } from "./errors.js";
import { FAILURE_HINTS, networkKindOf, type PlatformFailureKind } from "./failure-kind.js";

/** What failed and what to do, for any platform or token error: the network told from credentials. */
export function classifyNetworkError(err: unknown): { kind: PlatformFailureKind; hint: string } {
  const kind = err instanceof PlatformError ? err.kind : networkKindOf(err);
  return { kind, hint: FAILURE_HINTS[kind] };
}
