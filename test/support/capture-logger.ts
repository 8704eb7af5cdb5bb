import { createLogger, type Logger } from '../../src/log/index.js';

/** A pino logger writing JSON lines into memory, for tests that assert on logs. */
export function captureLogger(level = 'debug'): {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  text: () => string;
} {
  const chunks: string[] = [];
  const logger = createLogger({
    level,
    destination: {
      write: (chunk: string) => {
        chunks.push(chunk);
      },
    },
  });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
