export { createLogger, silentLogger, type Logger, type LoggerOptions } from "./logger.js";
