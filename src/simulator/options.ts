import { systemClock, type Clock } from "../shared/clock.js";
import { SimulatorError } from "./errors.js";

/** Every option of `threatbridge simulate`, plus test hooks; `undefined` means the default. */
export interface SimulatorOptions {
  /** Interface to bind; default "127.0.0.1". */
  host?: string | undefined;
  /** Port to bind; 0 (the default) picks a free one. */
  port?: number | undefined;
  /** Seed of the generated data, faults and scan outcomes; default 1. */
  seed?: number | undefined;
  /** Number of generated assets; default 40. */
  assets?: number | undefined;
  /** Number of generated threats; default 150. */
  threats?: number | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** A second client whose tokens may read but never write (spec, Authentication 5). */
  readOnlyClientId?: string | undefined;
  readOnlyClientSecret?: string | undefined;
  /** Access token lifetime; default 300 (spec, Authentication 3: five minutes). */
  tokenTtlSeconds?: number | undefined;
  clock?: Clock | undefined;
  /** Delay before a note or an external reference becomes visible; default 50 ms. */
  asyncWriteDelayMs?: number | undefined;
  /** Key that signs cursors; default a random per-process key. */
  cursorSecret?: string | undefined;
  /** The `{base_url}` to announce (e.g. behind a container port mapping); default from host/port. */
  publicUrl?: string | undefined;
}

interface ResolvedOptions {
  host: string;
  port: number;
  seed: number;
  assets: number;
  threats: number;
  clientId: string;
  clientSecret: string;
  readOnlyClientId: string;
  readOnlyClientSecret: string;
  tokenTtlSeconds: number;
  clock: Clock;
  asyncWriteDelayMs: number;
  cursorSecret: string | null;
  publicUrl: string | null;
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SimulatorError(
      "invalid_options",
      `${name} must be an integer from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}

function text(name: string, value: string): string {
  if (value.length === 0) throw new SimulatorError("invalid_options", `${name} must not be empty`);
  return value;
}

export function resolveOptions(opts: SimulatorOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    host: text("host", opts.host ?? "127.0.0.1"),
    port: integer("port", opts.port ?? 0, 0, 65535),
    seed: integer("seed", opts.seed ?? 1, 0, 2 ** 32 - 1),
    assets: integer("assets", opts.assets ?? 40, 0, 1_000_000),
    threats: integer("threats", opts.threats ?? 150, 0, 5_000_000),
    clientId: text("clientId", opts.clientId ?? "threatbridge"),
    clientSecret: text("clientSecret", opts.clientSecret ?? "threatbridge-secret"),
    readOnlyClientId: text("readOnlyClientId", opts.readOnlyClientId ?? "threatbridge-readonly"),
    readOnlyClientSecret: text(
      "readOnlyClientSecret",
      opts.readOnlyClientSecret ?? "threatbridge-readonly-secret",
    ),
    tokenTtlSeconds: integer("tokenTtlSeconds", opts.tokenTtlSeconds ?? 300, 1, 86_400 * 365),
    clock: opts.clock ?? systemClock,
    asyncWriteDelayMs: integer("asyncWriteDelayMs", opts.asyncWriteDelayMs ?? 50, 0, 60_000),
    cursorSecret: opts.cursorSecret ?? null,
    publicUrl: opts.publicUrl ?? null,
  };
  if (resolved.threats > 0 && resolved.assets === 0) {
    throw new SimulatorError("invalid_options", "threats need at least one asset to belong to");
  }
  if (resolved.clientId === resolved.readOnlyClientId) {
    throw new SimulatorError("invalid_options", "the read-only client id must differ from the client id");
  }
  return resolved;
}
