export { createLogger, type Logger } from './create-logger.js';
export { flatFieldsLogger, type FlatFieldsLogger } from './flat-fields-logger.js';
export { outputDestination } from './output-destination.js';
