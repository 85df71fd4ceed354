import { PlatformError } from "./errors.js";
import { FAILURE_HINTS, networkKindOf, type PlatformFailureKind } from "./failure-kind.js";

/**
 * What failed and what to do about it, for any error of a platform or token request, or a raw
 * transport error: network errors are told apart from credential errors everywhere.
 * `threatbridge check` prints the hint under a failed check.
 */
export function classifyNetworkError(err: unknown): { kind: PlatformFailureKind; hint: string } {
  const kind = err instanceof PlatformError ? err.kind : networkKindOf(err);
  return { kind, hint: FAILURE_HINTS[kind] };
}
