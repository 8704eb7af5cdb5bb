import { describe, it } from 'mocha';
import { assert } from 'chai';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/tls/index.js';
import {
  isCa,
  keyBelongsTo,
  parseCertificate,
  renewalDueWhy,
  signedBy,
  subjectAltNames,
} from '../../../src/tls/certificate-renewal.js';
import { serviceHosts } from '../../../src/tls/ensure-webhook-certificates.js';

const DAY = 24 * 3600 * 1000;
const at = (iso: string) => new Date(iso);

describe('renewalDueWhy: when a certificate must be replaced', () => {
  const validity = { notBefore: at('2026-01-01T00:00:00Z'), notAfter: at('2027-01-01T00:00:00Z') };
  const cases: Array<[string, Date, number, RegExp | undefined]> = [
    ['well within its validity', at('2026-06-01T00:00:00Z'), 30, undefined],
    [
      'one day more than renewBefore left',
      new Date(validity.notAfter.getTime() - 31 * DAY),
      30,
      undefined,
    ],
    [
      'exactly renewBefore left',
      new Date(validity.notAfter.getTime() - 30 * DAY),
      30,
      /within 30 days/,
    ],
    [
      'less than renewBefore left',
      new Date(validity.notAfter.getTime() - DAY),
      30,
      /expires at 2027-01-01T00:00:00\.000Z, within 30 days/,
    ],
    ['expired', at('2027-01-01T00:00:00Z'), 30, /expired at 2027-01-01T00:00:00\.000Z/],
    ['long expired', at('2030-01-01T00:00:00Z'), 1, /expired at/],
    [
      'not valid yet (a clock far behind)',
      at('2025-12-31T00:00:00Z'),
      30,
      /not valid before 2026-01-01T00:00:00\.000Z/,
    ],
  ];
  for (const [what, now, renewBefore, expected] of cases) {
    it(what, () => {
      const why = renewalDueWhy(validity, now, renewBefore);
      if (expected === undefined) assert.isUndefined(why);
      else assert.match(why ?? '', expected);
    });
  }
});

describe('reading stored certificates', () => {
  it('parseCertificate: undefined for what is not a PEM certificate', () => {
    assert.isUndefined(parseCertificate(undefined));
    assert.isUndefined(parseCertificate(''));
    assert.isUndefined(parseCertificate('not a certificate'));
    assert.isUndefined(
      parseCertificate('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
    );
  });

  it('a serving certificate: its key, its issuer, its hosts; a CA is a CA and the serving certificate is not', async () => {
    const ca = await createCertificateAuthority('renewal-test');
    const other = await createCertificateAuthority('renewal-other');
    const hosts = serviceHosts('voe-system', 'voe-webhook');
    const serving = await issueServingCertificate(ca, { hosts });
    const certificate = parseCertificate(serving.certificatePem)!;
    assert.isTrue(keyBelongsTo(certificate, serving.keyPem));
    assert.isFalse(keyBelongsTo(certificate, ca.keyPem));
    assert.isFalse(keyBelongsTo(certificate, 'garbage'));
    assert.isFalse(keyBelongsTo(certificate, undefined));
    assert.isTrue(await signedBy(certificate, ca.certificate));
    assert.isFalse(await signedBy(certificate, other.certificate));
    assert.deepStrictEqual(subjectAltNames(certificate), hosts);
    assert.isTrue(isCa(parseCertificate(ca.certificatePem)!));
    assert.isFalse(isCa(certificate));
  });

  it('serviceHosts: the names a Service is called by, the cluster domain last', () => {
    assert.deepStrictEqual(serviceHosts('ns', 'svc'), [
      'svc',
      'svc.ns',
      'svc.ns.svc',
      'svc.ns.svc.cluster.local',
    ]);
    assert.strictEqual(
      serviceHosts('ns', 'svc', 'example.internal')[3],
      'svc.ns.svc.example.internal',
    );
  });
});
