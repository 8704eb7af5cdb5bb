export { createLogger, REDACTED_PATHS, type Logger, type LoggerOptions } from './create-logger.js';
export { flatFieldsLogger, type FlatFields, type FlatFieldsLogger } from './flat-fields-logger.js';
export { outputDestination } from './output-destination.js';
