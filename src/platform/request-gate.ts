/** "Never ask before the platform said you may" (spec "Errors" rule 1): one gate per client. */

export interface RequestGate {
  /** Epoch ms before which no request may be sent; 0 when the gate is open. */
  openAt(): number;
  /** Closes the gate until `at` (a later instant only ever extends it). */
  deferUntil(at: number): void;
}

export interface RequestGateOptions {
  /** A not-before instant remembered from an earlier process (epoch ms). */
  initial?: number | undefined;
  onChange?: ((openAt: number) => void) | undefined;
}

export function createRequestGate(opts: RequestGateOptions = {}): RequestGate {
  let openAt = opts.initial !== undefined && Number.isFinite(opts.initial) ? opts.initial : 0;
  return {
    openAt: () => openAt,
    deferUntil(at) {
      if (!Number.isFinite(at) || at <= openAt) return;
      openAt = at;
      opts.onChange?.(at);
    },
  };
}
