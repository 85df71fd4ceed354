import type { Logger as PinoLogger, DestinationStream } from "pino";
import { createRequire } from "node:module";
import { pinoModule } from "./pino-module.js";
import type * as PinoPrettyModule from "pino-pretty";
import type { SecretRegistry } from "./secrets.js";
import { serializeError } from "./error-serializer.js";
import { writeLines, type WriteLinesOptions } from "./write-lines.js";

export type Logger = PinoLogger;

/** Paths pino blanks out wherever they occur in a log object: secrets never reach the logs. */
const REDACT_PATHS = [
  "token",
  "*.token",
  "secret",
  "*.secret",
  "client_secret",
  "*.client_secret",
  "clientSecret",
  "*.clientSecret",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "private_key",
  "*.private_key",
  "privateKey",
  "*.privateKey",
  "access_token",
  "*.access_token",
];

/** Contract, "Logs go to stderr": JSON lines, or readable text for a person at a terminal. */
type LogFormat = "json" | "pretty";

interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
  /**
   * Credentials to scrub from every line, whatever field or message carries them (a server's
   * error text echoing a token): the last step before a line leaves the process.
   */
  secrets?: SecretRegistry;
  /**
   * Default json. `pretty` renders each line as text into `destination` (stderr when absent), one
   * write per record: a terminal writer in between keeps records off the progress line.
   */
  format?: LogFormat;
  /** Colours in pretty text (a terminal); off for files and tests. */
  colorize?: boolean;
  /** Pretty text only: how writes are summarized in a backfill (observability/write-lines.ts; tests). */
  writeLines?: Partial<WriteLinesOptions>;
}

/** A destination pino's `logger.flush()` reaches (a SonicBoom; the pretty writer's summary of writes). */
type Flushable = DestinationStream & { flush?: (cb?: (err?: Error) => void) => void };

/** A destination that scrubs each serialized line; registered secrets are matched in JSON form too. */
function scrubbing(destination: Flushable, secrets: SecretRegistry): Flushable {
  return {
    write: (line: string) => destination.write(secrets.scrub(line)),
    // Bound: a SonicBoom's flush is a method of its stream.
    flush: (cb) => (destination.flush ? destination.flush(cb) : cb?.()),
  };
}

/** The audit action of a write's record (`"audit":true`, contract "Logs"); null for any other record. */
function auditAction(line: string): string | null {
  if (!line.includes('"audit":true')) return null;
  const record: unknown = JSON.parse(line);
  if (typeof record !== "object" || record === null || !("action" in record)) return null;
  return typeof record.action === "string" ? record.action : null;
}

/** `log.format` when set, else pretty exactly when stderr is a terminal (contract). */
export function chooseLogFormat(configured: LogFormat | undefined, isTerminal: boolean): LogFormat {
  return configured ?? (isTerminal ? "pretty" : "json");
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const { pino } = pinoModule();
  const base = {
    level: opts.level ?? "info",
    base: { name: "threatbridge" },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    // `err` is pino's error object (type, message, stack) without what may carry credentials.
    serializers: { err: serializeError },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Scrubbing sees the JSON line pino serialized, before any pretty-printing: one place for both.
  const guard = (destination: DestinationStream): DestinationStream =>
    opts.secrets === undefined ? destination : scrubbing(destination, opts.secrets);
  if (opts.format === "pretty") {
    // pino-pretty reads pino's numeric levels, so the label formatter is for JSON only. It is
    // loaded only here: JSON logs (every container) do not pay for it. Its formatter, not its
    // transport: a record is rendered and written in the same call, whole.
    const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as typeof PinoPrettyModule;
    const style = {
      colorize: opts.colorize ?? false,
      ignore: "pid,hostname,name",
      translateTime: "SYS:HH:MM:ss",
    };
    const render = prettyFactory(style);
    // A write's audit line is one line of text: its message names the action and the issue; the
    // threat follows. Every key stays in the JSON logs.
    const renderWrite = prettyFactory({
      ...style,
      hideObject: true,
      messageFormat: (log, messageKey) => `${String(log[messageKey])} (threat ${String(log["threat_id"])})`,
    });
    const out = opts.destination ?? pino.destination({ fd: 2, sync: true });
    const now = opts.writeLines?.now ?? Date.now;
    const lines = writeLines(
      (text) => out.write(text),
      (msg) => render(JSON.stringify({ level: 30, time: now(), msg })),
      { ...opts.writeLines, now },
    );
    const destination = {
      write(line: string): void {
        const write = auditAction(line);
        if (write === null) lines.other(render(line));
        else lines.write(write, renderWrite(line));
      },
      // `logger.flush()`: the summary of the writes held back, at the end of a command.
      flush(cb?: (err?: Error) => void): void {
        lines.flush();
        cb?.();
      },
    };
    return pino(base, guard(destination));
  }
  // Level names, not numbers: `"level":"info"` is what an operator greps for.
  const json = { ...base, formatters: { level: (label: string) => ({ level: label }) } };
  if (opts.secrets === undefined) return pino(json, opts.destination);
  return pino(json, guard(opts.destination ?? pino.destination({ fd: 1, sync: true })));
}

/**
 * The logger of callers given none: made when first used, so that importing this module does not
 * load pino (pino-module.ts). A stand-in that forwards every operation to the real logger, so that
 * what is read, written, defined or spied on it (tests spy on its methods) is the real one's;
 * `child` is bound to the real logger, whose children then inherit from it, as before.
 */
export const silentLogger: Logger = lazyLogger(() => pinoModule().pino({ level: "silent" }));

function lazyLogger(make: () => Logger): Logger {
  let made: Logger | undefined;
  const real = (): Logger => (made ??= make());
  return new Proxy({} as Logger, {
    get(_target, key) {
      const logger = real();
      return key === "child" ? logger.child.bind(logger) : Reflect.get(logger, key, logger);
    },
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
