import type { Config } from "../../config/index.js";
import { acceptance } from "./acceptance/index.js";
import { sla } from "./sla/index.js";
import type { Feature } from "./types.js";

/** Every feature the connector has, in the order the core calls them. */
// Risk acceptance first: its steps were queued before the SLA's, and ties in the queue go by age.
const FEATURES: readonly Feature[] = [acceptance, sla];

/** The features the config switches on (its section present), built once per process. */
export function featuresFor(config: Config): readonly Feature[] {
  return FEATURES.filter((feature) => config[feature.configKey] !== undefined);
}
