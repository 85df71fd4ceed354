import type { FaultControls } from "./types.js";
import { matchesPattern } from "./router.js";

export type Fault =
  | { kind: "lose" }
  | { kind: "fail"; status: 500 | 502 | 503 }
  | { kind: "secondary"; retryAfterSeconds: number }
  /** 422 "Validation Failed" on the body, as github.com answers a body over its length limit. */
  | { kind: "invalid_body" };

interface Armed {
  method: string;
  pattern: string;
  fault: Fault;
}

interface WriteHook {
  remaining: number;
  run: () => void;
}

/** One-shot faults, consumed in arming order, and write hooks: a person acting between two writes, without sleeping. */
export function createFaults() {
  const armed: Armed[] = [];
  const hooks: WriteHook[] = [];
  const arm = (method: string, pattern: string, fault: Fault): void => {
    armed.push({ method, pattern, fault });
  };
  const controls: FaultControls = {
    loseNextResponse: (method, pattern) => arm(method, pattern, { kind: "lose" }),
    failNext: (method, pattern, status) => arm(method, pattern, { kind: "fail", status }),
    secondaryLimitNext: (method, pattern, retryAfterSeconds) =>
      arm(method, pattern, { kind: "secondary", retryAfterSeconds }),
    refuseBodyNext: (method, pattern) => arm(method, pattern, { kind: "invalid_body" }),
    afterWrites: (n, run) => {
      hooks.push({ remaining: n, run });
    },
  };
  return {
    controls,
    take(method: string, template: string, path: string): Fault | null {
      const i = armed.findIndex((a) => matchesPattern(a.method, a.pattern, method, template, path));
      if (i < 0) return null;
      const [taken] = armed.splice(i, 1);
      return taken?.fault ?? null;
    },
    /** Called once a write was processed, before it is answered: runs the hooks now due. */
    wrote(): void {
      for (const hook of [...hooks]) {
        hook.remaining -= 1;
        if (hook.remaining > 0) continue;
        hooks.splice(hooks.indexOf(hook), 1);
        hook.run();
      }
    },
  };
}
