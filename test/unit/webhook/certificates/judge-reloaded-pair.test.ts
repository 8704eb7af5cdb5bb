import { describe, it } from 'mocha';
import { assert } from 'chai';
import { judgeReloadedPair } from '../../../../src/webhook/certificates/judge-reloaded-pair.js';
import type { CertificatePair } from '../../../../src/webhook/certificates/load-certificate-pair.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const DAY = 86_400_000;

function pair(name: string, notBefore: number, notAfter: number): CertificatePair {
  return {
    cert: `cert-${name}`,
    key: `key-${name}`,
    notBefore: new Date(NOW.getTime() + notBefore),
    notAfter: new Date(NOW.getTime() + notAfter),
    fingerprint256: name,
  };
}

const valid = pair('valid', -DAY, 30 * DAY);
const renewed = pair('renewed', -1000, 90 * DAY);
const expired = pair('expired', -90 * DAY, -DAY);
const early = pair('early', DAY, 90 * DAY);

describe('judgeReloadedPair (what a reload does with the pair it read)', () => {
  it('the pair served: nothing to do', () => {
    assert.deepStrictEqual(judgeReloadedPair({ ...valid }, valid, NOW), { kind: 'unchanged' });
  });

  it('a new valid pair is served', () => {
    assert.deepStrictEqual(judgeReloadedPair(renewed, valid, NOW), { kind: 'serve' });
    assert.deepStrictEqual(judgeReloadedPair(renewed, undefined, NOW), { kind: 'serve' });
  });

  it('an expired pair, or one not valid yet, never replaces one the API server accepts', () => {
    assert.deepStrictEqual(judgeReloadedPair(expired, valid, NOW), {
      kind: 'refuse',
      why: `the certificate expired at ${expired.notAfter.toISOString()}`,
    });
    assert.deepStrictEqual(judgeReloadedPair(early, valid, NOW), {
      kind: 'refuse',
      why: `the certificate is not valid before ${early.notBefore.toISOString()}`,
    });
  });

  it('one that cannot be served replaces one that cannot either, saying why', () => {
    assert.deepStrictEqual(judgeReloadedPair(early, expired, NOW), {
      kind: 'serve',
      notValid: `the certificate is not valid before ${early.notBefore.toISOString()}`,
    });
    assert.deepStrictEqual(judgeReloadedPair(expired, undefined, NOW), {
      kind: 'serve',
      notValid: `the certificate expired at ${expired.notAfter.toISOString()}`,
    });
  });

  it('the same certificate with another key is a new pair', () => {
    assert.deepStrictEqual(judgeReloadedPair({ ...valid, key: 'key-other' }, valid, NOW), {
      kind: 'serve',
    });
  });
});
