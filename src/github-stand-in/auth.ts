import { createPublicKey, randomBytes, verify, type KeyObject } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../shared/clock.js";
import type { Actor } from "./store.js";

type AuthResult = { kind: "token"; actor: Actor } | { kind: "app" } | null;

interface AuthOptions {
  tokens: readonly string[];
  appAuth: { appId: string; publicKeyPem: string; installationId: number } | undefined;
  botLogin: string;
  clock: Clock;
}

const JwtHeader = z.object({ alg: z.literal("RS256") });
const JwtPayload = z.object({
  iss: z.union([z.string(), z.number()]),
  iat: z.number(),
  exp: z.number(),
});

/** Installation tokens live an hour on GitHub. */
const INSTALLATION_TOKEN_TTL_MS = 60 * 60 * 1000;
/** GitHub refuses app JWTs whose `exp` is more than 10 minutes after `iat`; allow clock drift. */
const MAX_JWT_LIFETIME_S = 10 * 60;
const CLOCK_DRIFT_S = 60;

export type Auth = ReturnType<typeof createAuth>;

export function createAuth(opts: AuthOptions) {
  const installationTokens = new Map<string, number>();
  const publicKey: KeyObject | null = opts.appAuth ? createPublicKey(opts.appAuth.publicKeyPem) : null;
  const tokenActor: Actor = { login: opts.botLogin, viaApp: false };
  const appActor: Actor = { login: opts.botLogin, viaApp: true };

  function verifyJwt(jwt: string): boolean {
    if (!publicKey || !opts.appAuth) return false;
    const [h, p, s, ...rest] = jwt.split(".");
    if (!h || !p || !s || rest.length > 0) return false;
    const header = JwtHeader.safeParse(parseJsonB64(h));
    const payload = JwtPayload.safeParse(parseJsonB64(p));
    if (!header.success || !payload.success) return false;
    if (!signatureOk(`${h}.${p}`, s, publicKey)) return false;
    const nowS = opts.clock.now() / 1000;
    const { iss, iat, exp } = payload.data;
    return (
      String(iss) === opts.appAuth.appId &&
      exp > nowS &&
      iat <= nowS + CLOCK_DRIFT_S &&
      exp - iat <= MAX_JWT_LIFETIME_S + CLOCK_DRIFT_S
    );
  }

  return {
    /** `Authorization: token X` or `Bearer X`; anything else is no credential at all. */
    authenticate(header: string | undefined): AuthResult {
      const m = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header ?? "");
      const credential = m?.[1];
      if (!credential) return null;
      if (opts.tokens.includes(credential)) return { kind: "token", actor: tokenActor };
      const expiresAt = installationTokens.get(credential);
      if (expiresAt !== undefined) {
        if (expiresAt > opts.clock.now()) return { kind: "token", actor: appActor };
        installationTokens.delete(credential);
        return null;
      }
      return credential.split(".").length === 3 && verifyJwt(credential) ? { kind: "app" } : null;
    },
    appMode: opts.appAuth !== undefined,
    installationId: opts.appAuth?.installationId ?? null,
    appId: opts.appAuth?.appId ?? null,
    mintInstallationToken(): { token: string; expiresAt: number } {
      const token = `ghs_${randomBytes(18).toString("base64url")}`;
      const expiresAt = opts.clock.now() + INSTALLATION_TOKEN_TTL_MS;
      installationTokens.set(token, expiresAt);
      return { token, expiresAt };
    },
  };
}

function signatureOk(signedPart: string, signature: string, key: KeyObject): boolean {
  try {
    return verify("sha256", Buffer.from(signedPart), key, Buffer.from(signature, "base64url"));
  } catch {
    // A malformed signature is a bad credential, not a server error.
    return false;
  }
}

function parseJsonB64(part: string): unknown {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return parsed;
  } catch {
    return undefined;
  }
}
