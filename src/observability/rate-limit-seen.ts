/**
 * GitHub's primary rate limit as its last answer showed it (`x-ratelimit-remaining`, `-limit`,
 * `-reset` headers), noted by wrapping the gateway's fetch, so that `status` can say how much of it
 * was left when it was last seen. Answers without the headers
 * (a 304 from some proxies, a stand-in) leave the last value as it was.
 */

export interface RateLimitSeen {
  remaining: number;
  limit: number | null;
  /** When GitHub resets the window, ISO. */
  resetAt: string | null;
  seenAt: string;
}

function header(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value);
}

export function rateLimitRecorder(
  base: typeof fetch,
  now: () => number,
): { fetch: typeof fetch; seen(): RateLimitSeen | null } {
  let last: RateLimitSeen | null = null;
  return {
    fetch: async (input, init) => {
      const response = await base(input, init);
      const remaining = header(response, "x-ratelimit-remaining");
      if (remaining !== null) {
        const reset = header(response, "x-ratelimit-reset");
        last = {
          remaining,
          limit: header(response, "x-ratelimit-limit"),
          resetAt: reset === null ? null : new Date(reset * 1000).toISOString(),
          seenAt: new Date(now()).toISOString(),
        };
      }
      return response;
    },
    seen: () => last,
  };
}
