import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readinessAnswer } from '../../../src/webhook/readiness-answer.js';
import { createBodyBuffer } from '../../../src/webhook/review/body-buffer.js';
import { unsupportedEncoding } from '../../../src/webhook/review/unsupported-encoding.js';
import { invalidJsonMessage } from '../../../src/webhook/review/invalid-json-message.js';
import { routeWebhookRequest } from '../../../src/webhook/route-webhook-request.js';

describe("the webhook server's and admission handler's pure steps", () => {
  describe('readinessAnswer', () => {
    const ready = {
      cachesReady: true,
      status: {},
      certificateLoaded: true,
      certificateNotValid: undefined,
    };
    const cases: Array<[string, Parameters<typeof readinessAnswer>[0], number, string]> = [
      ['ready', ready, 200, 'ok'],
      [
        'ready, naming what is not served and not read',
        { ...ready, status: { notServed: ['a.x', 'b.x'], notRead: ['c.y'], unsynced: ['z'] } },
        200,
        'ok; not served by the cluster, watched as empty: a.x, b.x; served but not read yet (not listed, see the log): c.y',
      ],
      [
        'caches not synced, named',
        { ...ready, cachesReady: false, status: { unsynced: ['pvcs', 'vms.kubevirt.io'] } },
        503,
        'not ready: caches not synced (pvcs, vms.kubevirt.io)',
      ],
      [
        'caches not synced, none named',
        { ...ready, cachesReady: false },
        503,
        'not ready: caches not synced',
      ],
      [
        'no certificate loaded yet',
        { ...ready, certificateLoaded: false, certificateNotValid: 'expired' },
        503,
        'not ready: certificate not loaded',
      ],
      [
        'certificate expired, caches not synced',
        { ...ready, cachesReady: false, certificateNotValid: 'expired at X' },
        503,
        'not ready: caches not synced, certificate not servable: expired at X',
      ],
    ];
    for (const [title, state, status, text] of cases) {
      it(title, () => {
        assert.deepStrictEqual(readinessAnswer(state), { status, text });
      });
    }
  });

  describe('createBodyBuffer', () => {
    it('one chunk as it came; several gathered in order', () => {
      const one = createBodyBuffer(100, NaN);
      assert.isTrue(one.add(Buffer.from('{"a":1}')));
      assert.strictEqual(one.text(), '{"a":1}');
      const many = createBodyBuffer(100_000, 0);
      const text = 'x'.repeat(40_000);
      for (let i = 0; i < text.length; i += 1000)
        assert.isTrue(many.add(Buffer.from(text.slice(i, i + 1000))));
      assert.strictEqual(many.text(), text);
    });

    it('empty: no text', () => {
      assert.isUndefined(createBodyBuffer(10, 0).text());
      const zero = createBodyBuffer(10, 0);
      zero.add(Buffer.alloc(0));
      assert.isUndefined(zero.text());
    });

    it('at the limit accepted, past it refused and dropped', () => {
      const buffer = createBodyBuffer(10, 10);
      assert.isTrue(buffer.add(Buffer.from('12345')));
      assert.isTrue(buffer.add(Buffer.from('67890')));
      assert.strictEqual(buffer.text(), '1234567890');
      assert.isFalse(buffer.add(Buffer.from('1')));
      assert.isUndefined(buffer.text());
    });

    it('release lets the body go', () => {
      const buffer = createBodyBuffer(10, 0);
      buffer.add(Buffer.from('abc'));
      buffer.release();
      assert.isUndefined(buffer.text());
    });

    it('a multi-byte character split across chunks is decoded whole', () => {
      const bytes = Buffer.from('"é"');
      const buffer = createBodyBuffer(100, bytes.length);
      buffer.add(bytes.subarray(0, 2));
      buffer.add(bytes.subarray(2));
      assert.strictEqual(buffer.text(), '"é"');
    });
  });

  it('unsupportedEncoding: utf-8 or no charset and identity or no encoding pass', () => {
    const check = (headers: Record<string, string>) =>
      unsupportedEncoding({ headers } as Pick<IncomingMessage, 'headers'>);
    assert.strictEqual(check({}), '');
    assert.strictEqual(check({ 'content-type': 'application/json' }), '');
    assert.strictEqual(check({ 'content-type': 'application/json; charset=UTF-8' }), '');
    assert.strictEqual(check({ 'content-type': 'application/json; charset="utf8"' }), '');
    assert.strictEqual(check({ 'content-encoding': 'Identity' }), '');
    assert.strictEqual(
      check({ 'content-encoding': 'gzip' }),
      'content-encoding gzip is not supported',
    );
    assert.strictEqual(
      check({ 'content-type': 'application/json; charset=latin1' }),
      'charset latin1 is not supported; send utf-8',
    );
  });

  it("invalidJsonMessage: where, never V8's quote of the text", () => {
    let error: unknown;
    try {
      JSON.parse('{"secret": nope}');
    } catch (caught) {
      error = caught;
    }
    const message = invalidJsonMessage(error);
    assert.match(message, /^the request body is not valid JSON( \(at character \d+\))?$/);
    assert.notMatch(message, /nope|secret/);
    assert.strictEqual(
      invalidJsonMessage(new SyntaxError('Unexpected token at position 12')),
      'the request body is not valid JSON (at character 12)',
    );
    assert.strictEqual(invalidJsonMessage('odd'), 'the request body is not valid JSON');
  });

  describe('routeWebhookRequest', () => {
    const request = (method: string, url: string | undefined) =>
      ({ method, url }) as IncomingMessage;
    const response = () => {
      const headers: Record<string, string> = {};
      const res = {
        setHeader: (name: string, value: string) => {
          headers[name] = value;
        },
      } as unknown as ServerResponse;
      return { res, headers };
    };
    const route = (draining: boolean) => {
      const seen: string[] = [];
      const handler = routeWebhookRequest(
        new Map([['/validate', () => void seen.push('admission')]]),
        () => void seen.push('app'),
        () => draining,
      );
      return { handler, seen };
    };

    it('a POST to a webhook path (query ignored) goes to its admission handler, anything else to the app', () => {
      const { handler, seen } = route(false);
      const { res, headers } = response();
      handler(request('POST', '/validate'), res);
      handler(request('POST', '/validate?timeout=10s'), res);
      handler(request('GET', '/validate'), res);
      handler(request('POST', '/validate/'), res);
      handler(request('POST', undefined), res);
      assert.deepStrictEqual(seen, ['admission', 'admission', 'app', 'app', 'app']);
      assert.deepStrictEqual(headers, {});
    });

    it('while draining every answer closes its connection', () => {
      const { handler } = route(true);
      const { res, headers } = response();
      handler(request('GET', '/livez'), res);
      assert.deepStrictEqual(headers, { connection: 'close' });
    });
  });
});
