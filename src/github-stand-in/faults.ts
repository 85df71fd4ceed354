import type { FaultControls } from "./types.js";
import { matchesPattern } from "./router.js";

export type Fault =
  | { kind: "lose" }
  | { kind: "fail"; status: 500 | 502 | 503 }
  | { kind: "secondary"; retryAfterSeconds: number };

interface Armed {
  method: string;
  pattern: string;
  fault: Fault;
}

/** One-shot faults, consumed in the order they were armed by the first matching request. */
export function createFaults() {
  const armed: Armed[] = [];
  const arm = (method: string, pattern: string, fault: Fault): void => {
    armed.push({ method, pattern, fault });
  };
  const controls: FaultControls = {
    loseNextResponse: (method, pattern) => arm(method, pattern, { kind: "lose" }),
    failNext: (method, pattern, status) => arm(method, pattern, { kind: "fail", status }),
    secondaryLimitNext: (method, pattern, retryAfterSeconds) =>
      arm(method, pattern, { kind: "secondary", retryAfterSeconds }),
  };
  return {
    controls,
    take(method: string, template: string, path: string): Fault | null {
      const i = armed.findIndex((a) => matchesPattern(a.method, a.pattern, method, template, path));
      if (i < 0) return null;
      const [taken] = armed.splice(i, 1);
      return taken?.fault ?? null;
    },
  };
}
