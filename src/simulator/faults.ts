import { z } from "zod";
import type { Random } from "./random.js";

const rate = z.number().min(0).max(1);

/** Fault injection for `/v1/*`; `rate_500_after_write` answers 500 after applying: an unknown outcome. */
export const FaultSettings = z.strictObject({
  rate_429: rate.optional(),
  rate_500: rate.optional(),
  rate_500_after_write: rate.optional(),
  token_rate_500: rate.optional(),
  duplicate_rate: rate.optional(),
  withhold_recent_ms: z.number().int().min(0).max(3_600_000).optional(),
  retry_after_seconds: z.number().int().min(1).max(3600).optional(),
});
export type FaultSettings = z.infer<typeof FaultSettings>;

type FaultDecision = "none" | "rate-limit" | "error-before" | "error-after";

export interface Faults {
  set(settings: FaultSettings): FaultSettings;
  current(): FaultSettings;
  /** Decided before the handler runs, so a 500 on a write writes nothing. */
  decide(isWrite: boolean): FaultDecision;
  decideToken(): boolean;
  duplicate(): boolean;
  withholdRecentMs(): number;
  retryAfterSeconds(): number;
}

export function createFaults(random: Random): Faults {
  let settings: FaultSettings = {};
  const roll = (probability: number | undefined): boolean =>
    (probability ?? 0) > 0 && random.chance(probability ?? 0);
  return {
    set(next) {
      settings = { ...next };
      return settings;
    },
    current: () => ({ ...settings }),
    decide(isWrite) {
      if (roll(settings.rate_429)) return "rate-limit";
      if (roll(settings.rate_500)) return "error-before";
      if (isWrite && roll(settings.rate_500_after_write)) return "error-after";
      return "none";
    },
    decideToken: () => roll(settings.token_rate_500),
    duplicate: () => roll(settings.duplicate_rate),
    withholdRecentMs: () => settings.withhold_recent_ms ?? 0,
    retryAfterSeconds: () => settings.retry_after_seconds ?? 1,
  };
}
