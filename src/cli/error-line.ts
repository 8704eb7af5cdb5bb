import { isVoeError } from '../errors/index.js';

/** How the command line prints an error: "voe: <CODE>: <message>" for a VoeError, else its stack. */
export function errorLine(error: unknown): string {
  if (isVoeError(error)) return `voe: ${error.code}: ${error.message}\n`;
  return `voe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}
