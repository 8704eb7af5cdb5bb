import { isVoeError, redactUrlCredentials } from '../errors/index.js';

/** How the command line prints an error: "voe: <CODE>: <message>" for a VoeError, else its stack; credentials in URLs redacted. */
export function errorLine(error: unknown): string {
  const text = isVoeError(error)
    ? `${error.code}: ${error.message}`
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  return `voe: ${redactUrlCredentials(text)}\n`;
}
