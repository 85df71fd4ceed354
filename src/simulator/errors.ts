/** Errors of the simulator's own API (options, in-process controls); HTTP errors are problems. */
type SimulatorErrorCode = "invalid_options" | "not_found" | "invalid_input";

export class SimulatorError extends Error {
  readonly code: SimulatorErrorCode;

  constructor(code: SimulatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SimulatorError";
    this.code = code;
  }
}
