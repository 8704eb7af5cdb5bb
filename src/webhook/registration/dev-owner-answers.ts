import { request } from 'node:https';
import type { DevOwner } from './dev-registration-owner.js';

/**
 * Whether the voe serve --dev instance `owner` still serves: GET <url>/livez answers 200 over TLS
 * verified with `caBundle` (base64 PEM, from its registration), within `timeoutMs`. Another
 * process on that port (or no CA to verify with) is not the owner: false.
 */
export function devOwnerAnswers(
  owner: DevOwner,
  caBundle: string | undefined,
  timeoutMs = 2_000,
): Promise<boolean> {
  if (!caBundle) return Promise.resolve(false);
  let url: URL;
  try {
    url = new URL('/livez', owner.url);
  } catch {
    return Promise.resolve(false);
  }
  const ca = Buffer.from(caBundle, 'base64').toString('utf8');
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'GET', ca, agent: false, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end();
  });
}
