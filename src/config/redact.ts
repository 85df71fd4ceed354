import { SECRET_KEYS } from "./errors.js";

/** A deep copy with the values of secret keys replaced, for `status` output and logs. */
export function redactConfig(config: unknown): unknown {
  if (Array.isArray(config)) return config.map((item) => redactConfig(item));
  if (typeof config !== "object" || config === null) return config;
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      SECRET_KEYS.has(key) && value !== undefined ? "[redacted]" : redactConfig(value),
    ]),
  );
}
