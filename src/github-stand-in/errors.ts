/** Misuse of the stand-in's in-process API by a test (not an HTTP answer). */
export class StandInError extends Error {
  readonly code: "bad_repository" | "no_such_issue" | "no_actor";

  constructor(code: StandInError["code"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StandInError";
    this.code = code;
  }
}
