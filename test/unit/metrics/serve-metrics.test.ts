import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { Counter, Registry } from 'prom-client';
import { listenPlainHttp, metricsRequestHandler } from '../../../src/metrics/index.js';

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('metricsRequestHandler and listenPlainHttp', () => {
  const registry = new Registry();
  new Counter({ name: 'voe_test_total', help: 'a test counter', registers: [registry] }).inc();
  const server = createServer(
    metricsRequestHandler(registry, {
      '/livez': (response) => response.writeHead(200).end('ok\n'),
    }),
  );
  let url = '';
  before(async () => ({ url } = await listenPlainHttp(server, '127.0.0.1', 0)));
  after(() => close(server));

  it('answers on the URL it gives', () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  for (const { what, method, path, status, body } of [
    { what: 'the metrics', method: 'GET', path: '/metrics', status: 200, body: /voe_test_total 1/ },
    {
      what: 'the query ignored',
      method: 'GET',
      path: '/metrics?x=1',
      status: 200,
      body: /voe_test_total/,
    },
    { what: 'a route', method: 'GET', path: '/livez', status: 200, body: /^ok\n$/ },
    { what: 'an unknown path', method: 'GET', path: '/readyz', status: 404, body: /not found/ },
    { what: 'another method', method: 'POST', path: '/metrics', status: 405, body: /^$/ },
  ])
    it(`${method} ${path}: ${status} (${what})`, async () => {
      const response = await fetch(`${url}/${path.replace(/^\//, '')}`, { method });
      assert.strictEqual(response.status, status);
      assert.match(await response.text(), body);
      if (status === 405) assert.strictEqual(response.headers.get('allow'), 'GET');
      if (path.startsWith('/metrics') && status === 200)
        assert.strictEqual(response.headers.get('content-type'), registry.contentType);
    });

  it('a registry that cannot collect answers 500', async () => {
    const failing = new Registry();
    failing.metrics = () => Promise.reject(new Error('collect failed'));
    const other = createServer(metricsRequestHandler(failing));
    const { url: at } = await listenPlainHttp(other, '127.0.0.1', 0);
    try {
      const response = await fetch(`${at}/metrics`);
      assert.strictEqual(response.status, 500);
      assert.match(await response.text(), /metrics unavailable: Error: collect failed/);
    } finally {
      await close(other);
    }
  });

  it('rejects with the listen error when the port is taken', async () => {
    const port = Number(new URL(url).port);
    const second = createServer();
    try {
      await listenPlainHttp(second, '127.0.0.1', port).then(
        () => assert.fail('listened on a taken port'),
        (error: NodeJS.ErrnoException) => assert.strictEqual(error.code, 'EADDRINUSE'),
      );
    } finally {
      second.close();
    }
  });
});
