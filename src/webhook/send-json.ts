import type { ServerResponse } from 'node:http';

/** Writes `body` as JSON in one write (with `Connection: close` when `close`); nothing once an answer went out or the connection is gone. */
export function sendJson(
  res: ServerResponse,
  statusCode: number,
  body: unknown,
  close = false,
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(statusCode, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}
