/** Requests by method and outcome for `/metrics`, with bounded label values (`other`, status, `error`). */

const COUNTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** What came of one attempt: the answer's status code, or "error" when none came. */
type RequestOutcome = number | "error";

export interface RequestCount {
  readonly method: string;
  readonly status: string;
  readonly count: number;
}

export interface RequestTally {
  record(method: string, outcome: RequestOutcome): void;
  /** Every (method, status) pair seen so far with its count. */
  counts(): RequestCount[];
}

function methodLabel(method: string): string {
  const upper = method.toUpperCase();
  return (COUNTED_METHODS as readonly string[]).includes(upper) ? upper : "other";
}

function statusLabel(outcome: RequestOutcome): string {
  if (outcome === "error") return "error";
  return Number.isInteger(outcome) && outcome >= 100 && outcome <= 599 ? String(outcome) : "other";
}

export function createRequestTally(): RequestTally {
  const byKey = new Map<string, RequestCount>();
  return {
    record(method, outcome) {
      const m = methodLabel(method);
      const s = statusLabel(outcome);
      const key = `${m} ${s}`;
      byKey.set(key, { method: m, status: s, count: (byKey.get(key)?.count ?? 0) + 1 });
    },
    counts: () => [...byKey.values()],
  };
}
