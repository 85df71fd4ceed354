import cron from "node-cron";

/** When `run` starts a cycle; tests tick a scheduler by hand, so none waits on a wall clock. */
export interface Scheduler {
  /** Starts calling `onTick` at every scheduled time until the handle is stopped. */
  start(onTick: () => void): ScheduleHandle;
}

export interface ScheduleHandle {
  /** Epoch ms of the next tick, or null when none is known. */
  nextRunAt(): number | null;
  /** Milliseconds between two ticks (the schedule's period, for readiness). */
  periodMs(): number;
  stop(): void;
}

const FALLBACK_PERIOD_MS = 5 * 60_000;

/** A node-cron schedule (a sixth leading field is seconds); a tick only raises a flag, so cycles never overlap. */
export function cronScheduler(expression: string, opts: { timezone?: string } = {}): Scheduler {
  return {
    start(onTick) {
      const task = cron.createTask(expression, () => onTick(), {
        ...(opts.timezone !== undefined ? { timezone: opts.timezone } : {}),
        // A busy event loop (a large cycle) must not flood the log with "missed execution".
        suppressMissedWarning: true,
      });
      void task.start();
      return {
        nextRunAt: () => task.getNextRun()?.getTime() ?? null,
        periodMs: () => {
          const [a, b] = task.getNextRuns(2);
          return a && b ? Math.max(1000, b.getTime() - a.getTime()) : FALLBACK_PERIOD_MS;
        },
        stop: () => {
          void task.destroy();
        },
      };
    },
  };
}

/** A scheduler driven by the caller (tests, the demo): `tick()` fires one scheduled time. */
export interface ManualScheduler extends Scheduler {
  tick(): void;
  /** Whether the daemon has started (and not stopped) its schedule. */
  readonly running: boolean;
}

export function manualScheduler(
  opts: { periodMs?: number; nextRunAt?: () => number | null } = {},
): ManualScheduler {
  let listener: (() => void) | null = null;
  return {
    get running() {
      return listener !== null;
    },
    tick() {
      listener?.();
    },
    start(onTick) {
      listener = onTick;
      return {
        nextRunAt: opts.nextRunAt ?? (() => null),
        periodMs: () => opts.periodMs ?? FALLBACK_PERIOD_MS,
        stop: () => {
          listener = null;
        },
      };
    },
  };
}
