import { pino, type Logger as PinoLogger, type DestinationStream } from "pino";

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

export interface LoggerOptions {
  level?: string;
  destination?: DestinationStream;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? "info",
      base: { name: "threatbridge" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination,
  );
}

export const silentLogger: Logger = pino({ level: "silent" });
