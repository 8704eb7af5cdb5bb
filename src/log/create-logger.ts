import { pino, type Logger, type DestinationStream } from 'pino';
import { outputDestination } from './output-destination.js';

/** Paths that may carry credentials; pino replaces their values before anything is written. */
export const REDACTED_PATHS = [
  'secrets',
  '*.secrets',
  '*.*.secrets',
  'token',
  '*.token',
  '*.*.token',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  '*.keyData',
  '*.client-key-data',
  '*.clientKeyData',
];

export interface LoggerOptions {
  level?: string;
  name?: string;
  /** Default: standard output (outputDestination(1)). */
  destination?: DestinationStream;
}

/** JSON logs with secrets and tokens redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const opts = {
    level: options.level ?? 'info',
    name: options.name ?? 'voe',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return pino(opts, options.destination ?? outputDestination(1));
}

export type { Logger };
