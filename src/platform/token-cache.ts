import type { Dispatcher } from "undici";
import type { Clock, Sleep } from "../shared/clock.js";
import type { Logger } from "../observability/index.js";
import { PlatformTokenError, describeTransportError, type RequestInfo } from "./errors.js";
import { TokenErrorBody, TokenResponse } from "./schemas.js";
import { backoffMs, isRetryableStatus, retryAfterMs } from "./retry-policy.js";
import { headerValue, parseJsonBody, sendOnce, type RawResponse } from "./transport.js";

/**
 * OAuth 2.0 client-credentials tokens (spec "Authentication"): fetched once, shared by all
 * concurrent callers, renewed ahead of `expires_in`, and dropped when the platform answers 401.
 */

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

export interface TokenCacheOptions extends TokenCredentials {
  dispatcher: Dispatcher;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  maxRetries: number;
  logger: Logger;
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

/**
 * When to stop using a token: 30 s before expiry (longer than any request's timeout), or at 80 %
 * of a lifetime too short for that margin. A 300 s token serves 270 s, so a connector that is busy
 * all the time asks for about 1.1 tokens per lifetime, not 1.25.
 */
export function renewAfterMs(lifetimeMs: number): number {
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

  /** An identity provider may echo what it was sent; make sure the secret never leaves in a message. */
  const scrub = (text: string): string =>
    opts.clientSecret === ""
      ? text
      : text
          .split(opts.clientSecret)
          .join("[redacted]")
          .split(formEncode(opts.clientSecret))
          .join("[redacted]");

  function requestParts(): { headers: Record<string, string>; body: string } {
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (opts.scope !== undefined) form.set("scope", opts.scope);
    if (opts.audience !== undefined) form.set("audience", opts.audience);
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (opts.tokenAuth === "client_secret_basic") {
      const pair = `${formEncode(opts.clientId)}:${formEncode(opts.clientSecret)}`;
      headers["authorization"] = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
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
    return new PlatformTokenError({ ...info, status: res.status }, reason, oauth?.error);
  }

  async function fetchToken(): Promise<{ token: string; lifetimeMs: number }> {
    const { headers, body } = requestParts();
    for (let attempt = 0; ; attempt++) {
      count++;
      let res: RawResponse;
      try {
        res = await sendOnce(opts.dispatcher, { method: "POST", url, headers, body });
      } catch (err) {
        if (attempt >= opts.maxRetries) {
          throw new PlatformTokenError(info, `network: ${describeTransportError(err)}`, undefined, {
            cause: err,
          });
        }
        await opts.sleep(backoffMs(attempt, opts.random));
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
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
        return {
          token: parsed.data.access_token,
          lifetimeMs: (parsed.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000,
        };
      }
      if (isRetryableStatus(res.status) && attempt < opts.maxRetries) {
        const wait =
          retryAfterMs(headerValue(res.headers, "retry-after"), opts.clock) ??
          backoffMs(attempt, opts.random);
        opts.logger.debug({ status: res.status, waitMs: wait }, "token request failed, retrying");
        await opts.sleep(wait);
        continue;
      }
      throw failure(res);
    }
  }

  return {
    get() {
      if (current !== null && opts.clock.now() < current.renewAt) return Promise.resolve(current.token);
      if (inflight !== null) return inflight;
      const startedAt = opts.clock.now();
      const p = fetchToken().then(
        ({ token, lifetimeMs }) => {
          // Measured from when the request started: the token's life began no later than that.
          current = { token, renewAt: startedAt + renewAfterMs(lifetimeMs) };
          inflight = null;
          return token;
        },
        (err: unknown) => {
          inflight = null;
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
