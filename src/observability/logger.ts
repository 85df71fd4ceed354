import { pino, type Logger as PinoLogger, type DestinationStream } from "pino";
import { PinoPretty } from "pino-pretty";

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
export type LogFormat = "json" | "pretty";

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
  /** Default json. `pretty` renders each line as text into `destination` (stderr when absent). */
  format?: LogFormat;
  /** Colours in pretty text (a terminal); off for files and tests. */
  colorize?: boolean;
}

/** `log.format` when set, else pretty exactly when stderr is a terminal (contract). */
export function chooseLogFormat(configured: LogFormat | undefined, isTerminal: boolean): LogFormat {
  return configured ?? (isTerminal ? "pretty" : "json");
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const base = {
    level: opts.level ?? "info",
    base: { name: "threatbridge" },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.format === "pretty") {
    // pino-pretty reads pino's numeric levels, so the label formatter is for JSON only.
    const pretty = PinoPretty({
      destination: opts.destination ?? 2,
      sync: true,
      colorize: opts.colorize ?? false,
      ignore: "pid,hostname,name",
      translateTime: "SYS:HH:MM:ss",
    });
    return pino(base, pretty);
  }
  // Level names, not numbers: `"level":"info"` is what an operator greps for.
  return pino({ ...base, formatters: { level: (label) => ({ level: label }) } }, opts.destination);
}

export const silentLogger: Logger = pino({ level: "silent" });
