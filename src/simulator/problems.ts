/** Problem Details (RFC 9457) of the spec's error table, plus two types the simulator names itself. */
const PROBLEMS = {
  "request/invalid-cursor": { status: 400, title: "Invalid cursor" },
  "request/invalid-filter": { status: 400, title: "Invalid filter" },
  "request/invalid-limit": { status: 400, title: "Invalid limit" },
  "request/invalid-status-transition": { status: 400, title: "Invalid status transition" },
  "auth/missing-token": { status: 401, title: "Missing token" },
  "auth/invalid-token": { status: 401, title: "Invalid token" },
  "auth/insufficient-role": { status: 403, title: "Insufficient role" },
  "path/not-allowlisted": { status: 404, title: "Path not allowlisted" },
  "resource/not-found": { status: 404, title: "Resource not found" },
  "request/validation": { status: 422, title: "Validation failed" },
  "rate-limit/exceeded": { status: 429, title: "Rate limit exceeded" },
  "server/internal-error": { status: 500, title: "Internal server error" },
} as const;

type ProblemSuffix = keyof typeof PROBLEMS;

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

/** Thrown by handlers; the server turns it into an `application/problem+json` answer. */
export class ProblemError extends Error {
  readonly code = "sim_problem";
  readonly suffix: ProblemSuffix;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    suffix: ProblemSuffix,
    detail: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ProblemError";
    this.suffix = suffix;
    this.status = PROBLEMS[suffix].status;
    this.headers = options.headers ?? {};
  }
}

export function problemBody(
  baseUrl: string,
  suffix: ProblemSuffix,
  detail: string,
  instance: string,
): ProblemBody {
  const { status, title } = PROBLEMS[suffix];
  return { type: `${baseUrl}/errors/${suffix}`, title, status, detail, instance };
}
