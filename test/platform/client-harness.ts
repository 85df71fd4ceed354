import {
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
} from "../../src/platform/index.js";
import type { FakePlatform } from "./fake-platform.js";

/** A clock the test moves by hand, and a sleep that records the wait and moves that clock. */
export interface Harness {
  client: PlatformClient;
  clock: { now(): number; advance(ms: number): void };
  sleeps: number[];
}

export function harness(fake: FakePlatform, overrides: Partial<PlatformClientOptions> = {}): Harness {
  let now = Date.parse("2026-11-22T00:00:00Z");
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const sleeps: number[] = [];
  const client = createPlatformClient({
    baseUrl: fake.url,
    tokenUrl: fake.tokenUrl,
    clientId: "client-id",
    clientSecret: "s3cret-value",
    tokenAuth: "client_secret_basic",
    clock,
    sleep: (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, clock, sleeps };
}

export const THREAT_ID = "0b7c6f5e-1d2a-4c3b-9e8f-7a6b5c4d3e2f";

export function threat(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    status: "unsolved",
    updated_at: "2026-11-01T00:00:00Z",
    stream_position: "2026-11-01T00:00:00.000001Z",
    module_data: null,
    external_references: [],
    ...extra,
  };
}

/** A UUID-shaped id from a number, so tests can make many distinct threats. */
export function uuidOf(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** The error a promise rejects with, checked to be of class `cls` (no casts in tests). */
export async function rejection<E>(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await p;
  } catch (err) {
    if (err instanceof cls) return err;
    throw err;
  }
  throw new Error("expected the promise to reject");
}
