export { createLogger, REDACTED_PATHS, type Logger, type LoggerOptions } from './create-logger.js';
