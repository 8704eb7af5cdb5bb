import type { IncomingMessage } from 'node:http';

/** utf-8 (or no charset) and no content encoding: what the API server sends. Else why not ('' when fine). */
export function unsupportedEncoding(req: Pick<IncomingMessage, 'headers'>): string {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity')
    return `content-encoding ${encoding.slice(0, 40)} is not supported`;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i
    .exec(req.headers['content-type'] ?? '')?.[1]
    ?.toLowerCase();
  if (charset && charset !== 'utf-8' && charset !== 'utf8')
    return `charset ${charset.slice(0, 40)} is not supported; send utf-8`;
  return '';
}
