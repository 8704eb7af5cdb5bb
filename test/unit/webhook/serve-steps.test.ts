import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { certificateSource } from '../../../src/webhook/certificates/certificate-source.js';
import { urlHost } from '../../../src/webhook/url-host.js';
import { devCertificateHosts } from '../../../src/webhook/certificates/write-dev-certificates.js';
import { listenAdvice } from '../../../src/webhook/listen-advice.js';
import { validatorsByPath } from '../../../src/webhook/validators-by-path.js';
import { cacheGauges } from '../../../src/webhook/cache-gauges.js';
import type { Validator } from '../../../src/admission/validators/validator.js';

describe("serveWebhook's and createWebhookServer's pure steps", () => {
  describe('certificateSource', () => {
    const cases: Array<{
      title: string;
      options: Parameters<typeof certificateSource>[0];
      expected: ReturnType<typeof certificateSource> | RegExp;
    }> = [
      {
        title: '--dev without a --cert-dir: a temporary directory',
        options: { dev: true },
        expected: { dev: true, certDir: undefined },
      },
      {
        title: '--dev with a --cert-dir',
        options: { dev: true, certDir: '/srv/certs' },
        expected: { dev: true, certDir: '/srv/certs' },
      },
      {
        title: 'in cluster: the given files',
        options: { dev: false, tlsCertFile: 'tls.crt', tlsKeyFile: 'tls.key' },
        expected: { dev: false, certFile: 'tls.crt', keyFile: 'tls.key' },
      },
      {
        title: '--dev with a certificate file',
        options: { dev: true, tlsCertFile: 'tls.crt' },
        expected: /--dev generates its own certificate/,
      },
      {
        title: '--dev with a key file',
        options: { dev: true, tlsKeyFile: 'tls.key' },
        expected: /--dev generates its own certificate/,
      },
      {
        title: '--cert-dir without --dev (said before the missing files)',
        options: { dev: false, certDir: '/srv/certs' },
        expected: /--cert-dir is where --dev writes its certificate/,
      },
      {
        title: 'in cluster without a key file',
        options: { dev: false, tlsCertFile: 'tls.crt' },
        expected: /Serving in cluster needs --tls-cert-file and --tls-key-file/,
      },
      {
        title: 'in cluster with empty file names',
        options: { dev: false, tlsCertFile: '', tlsKeyFile: '' },
        expected: /Serving in cluster needs/,
      },
    ];
    for (const { title, options, expected } of cases) {
      it(title, () => {
        if (expected instanceof RegExp)
          expectThrow(() => certificateSource(options), {
            code: 'WEBHOOK_INVALID_OPTIONS',
            message: expected,
          });
        else assert.deepStrictEqual(certificateSource(options), expected);
      });
    }
  });

  it('urlHost: wildcards as their loopback, IPv6 in brackets, names and IPv4 as they are', () => {
    const cases: Array<[string, string]> = [
      ['0.0.0.0', '127.0.0.1'],
      ['::', '[::1]'],
      ['127.0.0.1', '127.0.0.1'],
      ['::1', '[::1]'],
      ['fe80::1', '[fe80::1]'],
      ['localhost', 'localhost'],
    ];
    for (const [address, host] of cases) assert.strictEqual(urlHost(address), host, address);
  });

  it('devCertificateHosts: the loopback names, and the bind host unless it is a wildcard or one of them', () => {
    const loopback = ['127.0.0.1', 'localhost', '::1'];
    assert.deepStrictEqual(devCertificateHosts('0.0.0.0'), loopback);
    assert.deepStrictEqual(devCertificateHosts('::'), loopback);
    assert.deepStrictEqual(devCertificateHosts('127.0.0.1'), loopback);
    assert.deepStrictEqual(devCertificateHosts('10.0.0.5'), [...loopback, '10.0.0.5']);
  });

  it('listenAdvice: by errno, a general hint otherwise', () => {
    const advice = (code: string | undefined) =>
      listenAdvice(Object.assign(new Error('x'), { code }));
    assert.match(advice('EADDRINUSE'), /another --port/);
    assert.match(advice('EADDRNOTAVAIL'), /pick another --bind-address/);
    assert.match(advice('ENOTFOUND'), /neither an IP address nor a name/);
    assert.strictEqual(advice('EAI_AGAIN'), advice('ENOTFOUND'));
    assert.match(advice('EACCES'), /above 1023/);
    assert.strictEqual(advice(undefined), 'Check --bind-address and --port.');
    assert.strictEqual(listenAdvice('not an error'), 'Check --bind-address and --port.');
  });

  describe('validatorsByPath', () => {
    const validator = (name: string, path: string): Validator =>
      ({ name, path, validate: () => ({ allowed: true }) }) as unknown as Validator;

    it('keeps the validators in their order, by path', () => {
      const byPath = validatorsByPath([validator('a', '/a'), validator('b', '/b')]);
      assert.deepStrictEqual([...byPath.keys()], ['/a', '/b']);
      assert.strictEqual(byPath.get('/b')?.name, 'b');
    });

    it('refuses a path without a leading slash', () => {
      expectThrow(() => validatorsByPath([validator('a', 'a')]), {
        code: 'WEBHOOK_INVALID_OPTIONS',
        message: 'Validator a has path "a"; paths must start with "/".',
      });
    });

    it('refuses two validators on one path, naming both', () => {
      expectThrow(() => validatorsByPath([validator('a', '/x'), validator('b', '/x')]), {
        code: 'WEBHOOK_DUPLICATE_PATH',
        message: 'Validators a and b both use path /x; give each its own path.',
      });
    });
  });

  describe('cacheGauges', () => {
    it('not synced: the unsynced count, at least 1 while not ready, 1 when the status throws', () => {
      const notSynced = (ready: boolean, unsynced: string[] | Error) =>
        cacheGauges({
          ready: () => ready,
          cacheStatus: () => {
            if (unsynced instanceof Error) throw unsynced;
            return { unsynced };
          },
        }).cachesNotSynced();
      assert.strictEqual(notSynced(true, []), 0);
      assert.strictEqual(notSynced(false, []), 1);
      assert.strictEqual(notSynced(false, ['a', 'b']), 2);
      assert.strictEqual(notSynced(true, new Error('broken')), 1);
      assert.strictEqual(cacheGauges({ ready: () => false }).cachesNotSynced(), 1);
      assert.strictEqual(cacheGauges({ ready: () => true }).cachesNotSynced(), 0);
    });

    it('not read: the notRead count, 0 when unknown or the status throws', () => {
      assert.strictEqual(
        cacheGauges({ ready: () => true, cacheStatus: () => ({ notRead: ['x'] }) }).cachesNotRead(),
        1,
      );
      assert.strictEqual(cacheGauges({ ready: () => true }).cachesNotRead(), 0);
      const throwing = () => {
        throw new Error('broken');
      };
      assert.strictEqual(
        cacheGauges({ ready: () => true, cacheStatus: throwing }).cachesNotRead(),
        0,
      );
    });
  });
});
