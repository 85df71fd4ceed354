import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../shared/clock.js";

/** The simulator's two roles: `writer` may call every endpoint, `reader` only the reads. */
type Role = "writer" | "reader";

export interface Client {
  id: string;
  secret: string;
  role: Role;
}

interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

type TokenCheck = { ok: true; role: Role; clientId: string } | { ok: false; reason: "unknown" | "expired" };

export interface TokenRegistry {
  /** The client whose credentials these are, or null. */
  authenticate(clientId: string, secret: string): Client | null;
  issue(client: Client): IssuedToken;
  check(token: string): TokenCheck;
  /** Makes every issued token invalid (tests of the connector's renewal on 401). */
  revokeAll(): void;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Opaque random bearer tokens with a lifetime (spec, Authentication 3). */
export function createTokenRegistry(
  clients: readonly Client[],
  ttlSeconds: number,
  clock: Clock,
): TokenRegistry {
  const tokens = new Map<string, { client: Client; expiresAtMs: number }>();
  const prune = (nowMs: number): void => {
    for (const [token, entry] of tokens) if (entry.expiresAtMs <= nowMs) tokens.delete(token);
  };
  return {
    authenticate(clientId, secret) {
      const client = clients.find((c) => same(c.id, clientId));
      return client !== undefined && same(client.secret, secret) ? client : null;
    },
    issue(client) {
      const nowMs = clock.now();
      if (tokens.size > 10_000) prune(nowMs);
      const accessToken = randomBytes(24).toString("base64url");
      tokens.set(accessToken, { client, expiresAtMs: nowMs + ttlSeconds * 1000 });
      return { accessToken, expiresIn: ttlSeconds };
    },
    check(token) {
      const entry = tokens.get(token);
      if (entry === undefined) return { ok: false, reason: "unknown" };
      if (entry.expiresAtMs <= clock.now()) return { ok: false, reason: "expired" };
      return { ok: true, role: entry.client.role, clientId: entry.client.id };
    },
    revokeAll() {
      tokens.clear();
    },
  };
}
