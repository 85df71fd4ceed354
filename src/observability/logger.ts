import { pino, type Logger as PinoLogger, type DestinationStream } from "pino";
import type { SecretRegistry } from "./secrets.js";

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
  /**
   * Credentials to scrub from every line, whatever field or message carries them (a server's
   * error text echoing a token): the last step before a line leaves the process.
   */
  secrets?: SecretRegistry;
}

/** A destination that scrubs each serialized line; registered secrets are matched in JSON form too. */
function scrubbing(destination: DestinationStream, secrets: SecretRegistry): DestinationStream {
  return { write: (line: string) => destination.write(secrets.scrub(line)) };
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return pino(
    {
      level: opts.level ?? "info",
      base: { name: "threatbridge" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.secrets === undefined
      ? opts.destination
      : scrubbing(opts.destination ?? pino.destination({ fd: 1, sync: true }), opts.secrets),
  );
}

export const silentLogger: Logger = pino({ level: "silent" });
