import { FAILURE_HINTS, isNetworkKind, type PlatformFailureKind } from "./failure-kind.js";
import { Problem } from "./schemas.js";

/** Errors of the platform client: a stable `code`, the `cause`, and messages safe to log (never a secret). */

export interface RequestInfo {
  method: string;
  /** Path of the request URL, without query string (a query never carries secrets here, but stay safe). */
  path: string;
}

export type PlatformErrorCode =
  | "platform_problem"
  | "platform_response_invalid"
  | "platform_token_failed"
  | "platform_network"
  | "platform_invalid_options"
  /** Not sent: the platform's Retry-After has not passed yet. */
  | "platform_deferred"
  /** Abandoned: the process is stopping. */
  | "platform_stopped";

export interface PlatformErrorOptions {
  cause?: unknown;
  /** Network (and which part), credentials, rate limit, stop, or an answer: default `answer`. */
  kind?: PlatformFailureKind;
}

export class PlatformError extends Error {
  readonly code: PlatformErrorCode;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly status: number | undefined;
  /** What failed, so that an unreachable platform is never blamed on credentials. */
  readonly kind: PlatformFailureKind;

  constructor(
    code: PlatformErrorCode,
    message: string,
    info: (RequestInfo & { status?: number | undefined }) | undefined,
    options?: PlatformErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.kind = options?.kind ?? "answer";
    this.method = info?.method;
    this.path = info?.path;
    this.status = info?.status;
  }

  /** The log form: stripped to method, path, status (subclasses add the problem body). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      kind: this.kind,
      message: this.message,
      method: this.method,
      path: this.path,
      status: this.status,
    };
  }
}

/** Prefix of every problem `type` URI: `{base_url}/errors/<suffix>` ("Errors"). */
const ERRORS_SEGMENT = "/errors/";

/** The stable suffix clients match on, e.g. `request/invalid-cursor`; the whole URI when it has no `/errors/`. */
export function problemTypeSuffix(type: string | undefined): string {
  if (type === undefined || type === "") return "about:blank";
  const at = type.lastIndexOf(ERRORS_SEGMENT);
  return at === -1 ? type : type.slice(at + ERRORS_SEGMENT.length);
}

/** An HTTP error answer of the platform (problem+json, or any other non-success answer). */
export class PlatformProblem extends PlatformError {
  /** Suffix after `/errors/`, e.g. `resource/not-found`; `about:blank` when the body had none. */
  readonly type: string;
  override readonly status: number;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  readonly requestId: string | undefined;
  readonly problem: Problem | undefined;

  constructor(
    args: RequestInfo & { status: number; problem: Problem | undefined; requestId: string | undefined },
  ) {
    const type = problemTypeSuffix(args.problem?.type);
    const detail = args.problem?.detail;
    // The detail is the server's text: keep the one-line message readable however long it is.
    const shown =
      detail === undefined ? "" : `: ${detail.length > 300 ? `${detail.slice(0, 300)}…` : detail}`;
    super(
      "platform_problem",
      `${args.method} ${args.path} answered ${args.status} ${type}${shown}` +
        (args.requestId === undefined ? "" : ` (request id ${args.requestId})`),
      args,
      { kind: problemKind(args.status) },
    );
    this.type = type;
    this.status = args.status;
    this.title = args.problem?.title;
    this.detail = detail;
    this.instance = args.problem?.instance;
    this.requestId = args.requestId;
    this.problem = args.problem;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), type: this.type, requestId: this.requestId, problem: this.problem };
  }
}

function problemKind(status: number): PlatformFailureKind {
  if (status === 401 || status === 403) return "credentials";
  return status === 429 ? "rate_limited" : "answer";
}

/** A request refused for what it is (400, 422 `request/validation`, spec "Errors"): sent again, refused again. */
export function isPermanentPlatformRefusal(error: unknown): error is PlatformProblem {
  return error instanceof PlatformProblem && (error.status === 400 || error.status === 422);
}

/** The platform asked for a pause the request did not wait out (spec "Errors" rule 1): the work goes later. */
export function isPlatformPause(error: unknown): error is PlatformError {
  return error instanceof PlatformError && (error.kind === "rate_limited" || error.status === 503);
}

/** Build a PlatformProblem from whatever error body arrived (problem+json or not). */
export function problemFromBody(
  info: RequestInfo & { status: number; requestId: string | undefined },
  body: unknown,
): PlatformProblem {
  const parsed = Problem.safeParse(body);
  return new PlatformProblem({ ...info, problem: parsed.success ? parsed.data : undefined });
}

/** A success answer whose body is not what the spec says (unparseable JSON, wrong envelope, bad object). */
export class PlatformResponseError extends PlatformError {
  readonly requestId: string | undefined;
  constructor(
    info: RequestInfo & { status?: number; requestId?: string | undefined },
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      "platform_response_invalid",
      `${info.method} ${info.path} answered ${info.status ?? "?"} with an unexpected body: ${reason}`,
      info,
      options,
    );
    this.requestId = info.requestId;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), requestId: this.requestId };
  }
}

/** The token endpoint refused or failed; the message names the OAuth error, and blames credentials only when they were refused. */
export class PlatformTokenError extends PlatformError {
  readonly oauthError: string | undefined;
  constructor(
    info: RequestInfo & { status?: number },
    reason: string,
    oauthError: string | undefined,
    options?: PlatformErrorOptions,
  ) {
    const kind = options?.kind ?? "credentials";
    const hint =
      isNetworkKind(kind) || kind === "rate_limited" || kind === "stopped"
        ? FAILURE_HINTS[kind]
        : "check platform.client_id, client_secret, token_auth and token_url";
    super(
      "platform_token_failed",
      `token request ${info.method} ${info.path} failed: ${reason}; ${hint}`,
      info,
      {
        ...options,
        kind,
      },
    );
    this.oauthError = oauthError;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), oauthError: this.oauthError };
  }
}

/** The connection failed (DNS, refused, TLS, timed out, reset) and retries, if allowed, ran out. */
export class PlatformNetworkError extends PlatformError {
  constructor(info: RequestInfo, reason: string, options?: PlatformErrorOptions) {
    const kind = options?.kind ?? "network_other";
    super("platform_network", `${info.method} ${info.path} failed: ${reason}; ${FAILURE_HINTS[kind]}`, info, {
      ...options,
      kind,
    });
  }
}

/** Not sent: the platform said not to ask before `notBefore` (Retry-After, "Errors" rule 1). */
export class PlatformDeferredError extends PlatformError {
  readonly notBefore: number;
  constructor(info: RequestInfo, notBefore: number) {
    super(
      "platform_deferred",
      `${info.method} ${info.path} not sent: the platform asked not to be called before ${new Date(notBefore).toISOString()} (Retry-After); the platform is read again after that`,
      info,
      { kind: "rate_limited" },
    );
    this.notBefore = notBefore;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), notBefore: new Date(this.notBefore).toISOString() };
  }
}

/** Abandoned because the process is stopping (SIGTERM/SIGINT); replay-safe work stays queued. */
export class PlatformStoppedError extends PlatformError {
  constructor(info: RequestInfo) {
    super("platform_stopped", `${info.method} ${info.path} abandoned: stopping`, info, { kind: "stopped" });
  }
}

/** A short description of a transport error (undici's codes); it names at most host and port. */
export function describeTransportError(err: unknown): string {
  if (err instanceof Error) {
    const code = "code" in err && typeof err.code === "string" ? `${err.code} ` : "";
    return `${code}${err.message}`.trim() || err.name;
  }
  return "unknown error";
}
