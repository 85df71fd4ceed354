import type { SecretRegistry } from "../observability/secrets.js";
import { PlatformTokenError, type RequestInfo } from "./errors.js";
import { TokenErrorBody, TokenResponse } from "./schemas.js";
import { isRetryableStatus } from "./retry-policy.js";
import { sendWithRetries, type RetryLoopOptions } from "./retry-loop.js";
import { parseJsonBody, type RawResponse } from "./transport.js";

/** OAuth client-credentials tokens (spec "Authentication"): shared, renewed ahead of expiry, dropped on 401. */

export type TokenAuth = "client_secret_basic" | "client_secret_post";

/** How the client obtains tokens: the spec's `{auth_url}` and the organization's credentials. */
export interface TokenCredentials {
  /** The spec's `{auth_url}`: the OAuth 2.0 token endpoint. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  tokenAuth: TokenAuth;
  scope?: string | undefined;
  audience?: string | undefined;
}

/** The retry loop's options, less the scrubber: every token issued is registered in `secrets`. */
export interface TokenCacheOptions extends TokenCredentials, Omit<RetryLoopOptions, "scrub"> {
  secrets: SecretRegistry;
}

export interface TokenCache {
  /** A token valid for a while yet; at most one token request is in flight at any time. */
  get(): Promise<string>;
  /** Forget `token` if it is still the cached one (a 401 said it is no good). */
  invalidate(token: string): void;
  /** Token requests sent so far (every HTTP attempt). */
  requestCount(): number;
}

/** "An access token is valid for 5 minutes" (spec "Authentication" rule 3): used when `expires_in` is absent. */
const DEFAULT_LIFETIME_S = 300;
const RENEW_MARGIN_MS = 30_000;
/** After a refusal of the credentials, asked again no sooner than this, doubling up to the cap. */
const REFUSAL_BACKOFF = { baseMs: 30_000, capMs: 30 * 60_000 };

/** When to stop using a token: 30 s before expiry (beyond any request's timeout), or at 80 % of a short lifetime. */
function renewAfterMs(lifetimeMs: number): number {
  return Math.max(lifetimeMs * 0.8, lifetimeMs - RENEW_MARGIN_MS);
}

/** RFC 6749 §2.3.1: id and secret are form-url-encoded before the Basic encoding. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function createTokenCache(opts: TokenCacheOptions): TokenCache {
  const url = new URL(opts.tokenUrl);
  const info: RequestInfo = { method: "POST", path: url.pathname };
  let current: { token: string; renewAt: number } | null = null;
  let inflight: Promise<string> | null = null;
  let count = 0;

  // An identity provider may echo what it was sent: the secret is registered, so scrubbing finds it.
  opts.secrets.add(opts.clientSecret);
  const scrub = (text: string): string => opts.secrets.scrub(text);
  /** Consecutive refusals and the instant before which the endpoint is not asked again. */
  let refusals = 0;
  let refusedUntil = 0;
  let lastRefusal: PlatformTokenError | null = null;

  /** The Basic pair form-url-encoded first (RFC 6749 §2.3.1), raw once an endpoint refused the encoded one. */
  let basicEncoded = true;
  const basicForms = opts.tokenAuth === "client_secret_basic" && pairOf(true) !== pairOf(false);

  function pairOf(encoded: boolean): string {
    const encode = encoded ? formEncode : (text: string) => text;
    return `${encode(opts.clientId)}:${encode(opts.clientSecret)}`;
  }

  function requestParts(): { headers: Record<string, string>; body: string } {
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (opts.scope !== undefined) form.set("scope", opts.scope);
    if (opts.audience !== undefined) form.set("audience", opts.audience);
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (opts.tokenAuth === "client_secret_basic") {
      const basic = Buffer.from(pairOf(basicEncoded), "utf8").toString("base64");
      // The encoded pair is as secret as the secret: an endpoint may echo the header it got.
      opts.secrets.add(basic);
      headers["authorization"] = `Basic ${basic}`;
    } else {
      form.set("client_id", opts.clientId);
      form.set("client_secret", opts.clientSecret);
    }
    return { headers, body: form.toString() };
  }

  function failure(res: RawResponse): PlatformTokenError {
    let body: unknown;
    try {
      body = parseJsonBody(res.text);
    } catch {
      body = undefined;
    }
    const parsed = TokenErrorBody.safeParse(body);
    const oauth = parsed.success ? parsed.data : undefined;
    const reason =
      oauth === undefined
        ? `HTTP ${res.status}`
        : `HTTP ${res.status} ${scrub(oauth.error)}${oauth.error_description === undefined ? "" : ` (${scrub(oauth.error_description)})`}`;
    const kind =
      res.status === 429 ? "rate_limited" : isRetryableStatus(res.status) ? "answer" : "credentials";
    return new PlatformTokenError({ ...info, status: res.status }, reason, oauth?.error, { kind });
  }

  /** A token; a Basic pair the endpoint refused is asked for once more in its other form. */
  async function fetchToken(): Promise<{ token: string; lifetimeMs: number }> {
    try {
      return await fetchTokenOnce();
    } catch (err) {
      if (!basicForms || !(err instanceof PlatformTokenError) || err.kind !== "credentials") throw err;
      basicEncoded = !basicEncoded;
      try {
        return await fetchTokenOnce();
      } catch (second) {
        basicEncoded = !basicEncoded;
        throw second instanceof PlatformTokenError && second.kind === "credentials" ? err : second;
      }
    }
  }

  function fetchTokenOnce(): Promise<{ token: string; lifetimeMs: number }> {
    const { headers, body } = requestParts();
    return sendWithRetries(
      { ...opts, scrub },
      {
        label: "token request",
        logFields: {},
        // A token request changes nothing on the platform: sending it again is always safe.
        replaySafe: true,
        request: () => Promise.resolve({ method: "POST", url, headers, body }),
        answered(res) {
          if (res.status < 200 || res.status >= 300) return undefined;
          let json: unknown;
          try {
            json = parseJsonBody(res.text);
          } catch {
            json = undefined;
          }
          const parsed = TokenResponse.safeParse(json);
          if (!parsed.success) {
            throw new PlatformTokenError(
              { ...info, status: res.status },
              "the answer is not a token response (access_token, expires_in)",
              undefined,
            );
          }
          opts.secrets.add(parsed.data.access_token);
          return {
            value: {
              token: parsed.data.access_token,
              lifetimeMs: (parsed.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000,
            },
          };
        },
        refused: failure,
        stopped: () => new PlatformTokenError(info, "abandoned: stopping", undefined, { kind: "stopped" }),
        deferred: (openAt) =>
          new PlatformTokenError(
            info,
            `not sent: the platform asked not to be called before ${new Date(openAt).toISOString()} (Retry-After)`,
            undefined,
            { kind: "rate_limited" },
          ),
        unreachable: (err, kind, reason) =>
          new PlatformTokenError(info, reason, undefined, { cause: err, kind }),
        onAttempt: () => void count++,
      },
    );
  }

  /** A refusal of the credentials closes the endpoint for a while, longer each time. */
  function noteRefusal(err: unknown): void {
    if (!(err instanceof PlatformTokenError) || err.kind !== "credentials") return;
    const wait = Math.min(REFUSAL_BACKOFF.capMs, REFUSAL_BACKOFF.baseMs * 2 ** Math.min(refusals, 20));
    refusals++;
    refusedUntil = opts.clock.now() + wait;
    lastRefusal = err;
  }

  return {
    get() {
      if (current !== null && opts.clock.now() < current.renewAt) return Promise.resolve(current.token);
      if (inflight !== null) return inflight;
      const startedAt = opts.clock.now();
      if (lastRefusal !== null && startedAt < refusedUntil) {
        return Promise.reject(
          new PlatformTokenError(
            { ...info, ...(lastRefusal.status === undefined ? {} : { status: lastRefusal.status }) },
            `refused ${refusals} time(s), last: ${lastRefusal.oauthError ?? `HTTP ${lastRefusal.status ?? "?"}`}; not asked again before ${new Date(refusedUntil).toISOString()}`,
            lastRefusal.oauthError,
            { kind: "credentials" },
          ),
        );
      }
      const p = fetchToken().then(
        ({ token, lifetimeMs }) => {
          // Measured from when the request started: the token's life began no later than that.
          current = { token, renewAt: startedAt + renewAfterMs(lifetimeMs) };
          inflight = null;
          refusals = 0;
          lastRefusal = null;
          return token;
        },
        (err: unknown) => {
          inflight = null;
          noteRefusal(err);
          throw err;
        },
      );
      inflight = p;
      return p;
    },
    invalidate(token) {
      if (current?.token === token) current = null;
    },
    requestCount: () => count,
  };
}
