/**
 * The control plane's ports are chosen free and released before etcd and kube-apiserver bind
 * them, so another process can take one in between (two test files start control planes at
 * once). Here a listener really holds the port handed out: the start notices the bind failure
 * and tries again on new ports; a port that stays taken ends in a clear error.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { createServer, type Server } from 'node:net';
import { CoreV1Api } from '@kubernetes/client-node';
import { ControlPlaneError, startControlPlane } from '../../../src/controlplane/index.js';
import { startTimeoutFromEnv } from '../../../src/controlplane/start-timeout-from-env.js';
import { freePort } from '../../../src/controlplane/free-port.js';
import { TEST_START_TIMEOUT_MS, testCacheDir } from '../../support/use-control-plane.js';

async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

/** Hands out `taken` at the given positions of the sequence of calls, a free port otherwise. */
function portsWithTaken(
  taken: number,
  positions: Set<number>,
): { choosePort: () => Promise<number>; calls: () => number } {
  let call = 0;
  return {
    choosePort: async () => (positions.has(call++) ? taken : freePort()),
    calls: () => call,
  };
}

const base = {
  cacheDir: testCacheDir(),
  env: process.env,
  startTimeoutMs: startTimeoutFromEnv(process.env) ?? TEST_START_TIMEOUT_MS,
};

for (const [which, position] of [
  ['etcd client', 0],
  ['etcd peer', 1],
  ['kube-apiserver', 2],
] as const) {
  it(`a taken ${which} port: the control plane starts on new ports`, async () => {
    const held = await holdPort();
    onCleanup(() => held.server.close());
    const ports = portsWithTaken(held.port, new Set([position]));
    const progress: string[] = [];
    const cp = await startControlPlane({
      ...base,
      choosePort: ports.choosePort,
      onProgress: (line) => progress.push(line),
    });
    onCleanup(() => cp.stop());
    // A second set of three ports at least: a port freePort hands out can also be taken by another
    // test's process before it binds (what this file is about), and then a third set is chosen.
    assert.oneOf(ports.calls(), [6, 9], 'a new set of three ports was chosen for each retry');
    assert.ok(
      progress.some((line) =>
        /port chosen for the control plane was taken .* retrying on new ports \(1 of 3\)/.test(
          line,
        ),
      ),
      progress.join('\n'),
    );
    assert.ok(!cp.apiServerUrl.endsWith(`:${held.port}`) && !cp.etcdUrl.endsWith(`:${held.port}`));
    const namespaces = await cp.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
    assert.ok(namespaces.items.some((ns) => ns.metadata?.name === 'kube-system'));
  });
}

it('a port that stays taken: CONTROLPLANE_PROCESS_EXITED after three tries, with the bind error', async () => {
  const held = await holdPort();
  onCleanup(() => held.server.close());
  const ports = portsWithTaken(held.port, new Set([0, 3, 6]));
  await expectRejection(
    startControlPlane({ ...base, choosePort: ports.choosePort }),
    (error: unknown) => {
      assert.ok(error instanceof ControlPlaneError);
      assert.strictEqual(error.code, 'CONTROLPLANE_PROCESS_EXITED');
      assert.match(error.message, /etcd exited .*address already in use/s);
      return true;
    },
  );
  assert.strictEqual(ports.calls(), 9);
});
