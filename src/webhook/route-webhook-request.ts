import type { IncomingMessage, ServerResponse } from 'node:http';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The webhook server's request listener: a POST to a webhook path goes straight to its admission
 * handler (the hot path), everything else to `app`; while `draining()` every answer closes its
 * connection.
 */
export function routeWebhookRequest(
  admissionHandlers: ReadonlyMap<string, RequestHandler>,
  app: RequestHandler,
  draining: () => boolean,
): RequestHandler {
  return (req, res) => {
    // Merged into the admission handler's writeHead and kept by express: Node then closes the
    // connection after this answer.
    if (draining()) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const handler =
      req.method === 'POST'
        ? admissionHandlers.get(query < 0 ? url : url.slice(0, query))
        : undefined;
    if (handler) handler(req, res);
    else app(req, res);
  };
}
