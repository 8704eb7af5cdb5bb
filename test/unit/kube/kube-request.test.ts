import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { expectRejection } from '../../support/expect-error.js';
import { KubeConfig } from '@kubernetes/client-node';
import { openWatch, requestJson } from '../../../src/kube/index.js';
import { listenTcp } from '../../support/tcp-listener.js';

/** A kubeconfig for `server` (no credentials: nothing here checks them). */
function kubeConfigFor(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

it('a request to an API server that accepts the connection and never answers ends with "no answer within", over TLS too', async () => {
  const port = await listenTcp(() => undefined);
  await expectRejection(
    requestJson(kubeConfigFor(`https://127.0.0.1:${port}`), {
      method: 'GET',
      path: '/api',
      timeoutMs: 300,
    }),
    (error: unknown) => {
      assert.match(
        (error as Error).message,
        /GET \/api failed before an answer from the API server \(no answer within 300 ms\)/,
      );
      return true;
    },
  );
});

it('the time limit is for the whole request: a server that keeps sending pieces of an answer it never finishes is not waited for forever', async () => {
  const timers = new Set<NodeJS.Timeout>();
  const port = await listenTcp((socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n');
    // One more header byte every 50 ms: the connection is never idle, the answer never complete.
    const timer = setInterval(() => socket.write('X'), 50);
    timers.add(timer);
    socket.on('close', () => clearInterval(timer));
  });
  onCleanup(() => {
    for (const timer of timers) clearInterval(timer);
  });
  await expectRejection(
    requestJson(kubeConfigFor(`http://127.0.0.1:${port}`), {
      method: 'GET',
      path: '/api',
      timeoutMs: 500,
    }),
    /no answer within 500 ms/,
  );
});

it('a watch that receives nothing for its idle time ends with that error; one that keeps receiving stays open', async () => {
  const timers = new Set<NodeJS.Timeout>();
  onCleanup(() => {
    for (const timer of timers) clearInterval(timer);
  });
  const port = await listenTcp((socket) => {
    socket.once('data', (request) => {
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      if (request.toString().includes('/quiet')) return; // silent after the headers
      // An event every 100 ms, each well within the idle time.
      const line = `${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '1' } } })}\n`;
      const timer = setInterval(
        () => socket.write(`${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`),
        100,
      );
      timers.add(timer);
      socket.on('close', () => clearInterval(timer));
    });
  });
  const kc = kubeConfigFor(`http://127.0.0.1:${port}`);
  const error = await new Promise<unknown>((resolve) => {
    void openWatch(kc, {
      path: '/quiet',
      idleTimeoutMs: 300,
      onEvent: () => undefined,
      onDone: resolve,
    });
  });
  assert.match(String((error as Error).message), /watch idle for 300 ms/);

  let events = 0;
  let done: unknown = 'not done';
  let sixth: () => void = () => undefined;
  const sixEvents = new Promise<void>((resolve) => {
    sixth = resolve;
  });
  const handle = await openWatch(kc, {
    path: '/busy',
    idleTimeoutMs: 300,
    onEvent: () => {
      events += 1;
      if (events === 6) sixth();
    },
    onDone: (e) => {
      done = e;
      sixth();
    },
  });
  await sixEvents; // twice the idle time of steady events
  handle.abort();
  assert.strictEqual(done, 'not done', 'the watch was ended although events kept arriving');
  assert.ok(events >= 6);
});
