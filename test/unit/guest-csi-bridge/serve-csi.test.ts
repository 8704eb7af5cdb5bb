import { describe, it } from 'mocha';
import { assert } from 'chai';
import { status } from '@grpc/grpc-js';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { serveCsi } from '../../../src/guest-csi-bridge/server/serve-csi.js';
import type { ServiceHandlers } from '../../../src/guest-csi-bridge/server/service-handlers.js';
import { captureLogger } from '../../support/capture-logger.js';
import { onCleanup } from '../../support/cleanup.js';
import { createCsiClient } from '../../support/guest-csi-bridge/csi-client.js';
import { expectRejection } from '../../support/expect-error.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';

async function tempSocket(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-csi-unit-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'csi.sock');
}

const identity: ServiceHandlers = {
  GetPluginInfo: async () => ({
    name: 'driver.harvesterhci.io',
    vendor_version: '1',
    manifest: {},
  }),
};

describe('serveCsi (gRPC on a unix socket)', () => {
  it('answers, maps errors to gRPC codes with their stable code, redacts secrets in logs', async () => {
    const socket = await tempSocket();
    const logs = captureLogger('debug');
    let seenSignal: AbortSignal | undefined;
    const controller: ServiceHandlers = {
      ControllerExpandVolume: async (request) => {
        const { volume_id: id } = request as { volume_id: string };
        if (id === 'refused') throw new CsiError('CSI_PROVIDER_NOT_VALIDATED', 'not validated');
        if (id === 'bug') throw new Error('something with token=hunter2');
        return { capacity_bytes: '2147483648', node_expansion_required: true };
      },
      CreateVolume: async (_request, ctx) => {
        seenSignal = ctx.signal;
        await new Promise((resolve) =>
          ctx.signal.addEventListener('abort', resolve, { once: true }),
        );
        throw new CsiError('CSI_HOST_TIMEOUT', 'gave up before the deadline');
      },
    };
    const server = await serveCsi({
      endpoint: `unix://${socket}`,
      identity,
      controller,
      log: logs.logger,
    });
    onCleanup(() => server.stop(100));
    const client = createCsiClient(socket);
    onCleanup(() => client.close());

    assert.strictEqual(
      (await client.call('Identity', 'GetPluginInfo')).name,
      'driver.harvesterhci.io',
    );
    const grown = await client.call('Controller', 'ControllerExpandVolume', {
      volume_id: 'ok',
      capacity_range: { required_bytes: '2147483648' },
      secrets: { kubeconfig: 'apiVersion: v1 # hunter2-secret' },
    });
    assert.deepStrictEqual(grown, { capacity_bytes: '2147483648', node_expansion_required: true });

    await expectRejection(
      client.call('Controller', 'ControllerExpandVolume', {
        volume_id: 'refused',
        secrets: { token: 'hunter2-secret' },
      }),
      (error: unknown) => {
        const e = error as { code: number; details: string };
        assert.strictEqual(e.code, status.INVALID_ARGUMENT);
        assert.strictEqual(e.details, 'CSI_PROVIDER_NOT_VALIDATED: not validated');
        return true;
      },
    );
    await expectRejection(
      client.call('Controller', 'ControllerExpandVolume', { volume_id: 'bug' }),
      (error: unknown) => {
        const e = error as { code: number; details: string };
        assert.strictEqual(e.code, status.INTERNAL);
        assert.notInclude(e.details, 'hunter2');
        return true;
      },
    );
    // Not in our proto's Controller service: UNIMPLEMENTED from grpc-js.
    await expectRejection(
      client.call('Node', 'NodeGetInfo'),
      (error: unknown) => (error as { code: number }).code === status.UNIMPLEMENTED,
    );

    // The deadline reaches the handler as an abort shortly before it, so it can answer with its own error.
    await expectRejection(
      client.call('Controller', 'CreateVolume', { name: 'x' }, { timeoutMs: 1_500 }),
      (error: unknown) => {
        const e = error as { code: number; details: string };
        assert.strictEqual(e.code, status.DEADLINE_EXCEEDED);
        assert.match(e.details, /CSI_HOST_TIMEOUT/);
        return true;
      },
    );
    assert.isTrue(seenSignal?.aborted);

    const text = logs.text();
    assert.notInclude(text, 'hunter2-secret');
    assert.include(text, '[redacted]');
    assert.include(text, 'CSI_PROVIDER_NOT_VALIDATED');
  });

  it('replaces a stale socket, refuses one that is served and anything that is not a socket', async () => {
    const socket = await tempSocket();
    const logs = captureLogger('silent');
    // A socket nobody serves any more: its process was killed (SIGKILL leaves the file behind).
    const holder = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => console.log('up'))`,
    ]);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    assert.isTrue((await stat(socket)).isSocket(), 'the killed process left its socket');
    await writeFile(`${socket}.marker`, '');
    const first = await serveCsi({ endpoint: `unix://${socket}`, identity, log: logs.logger });
    onCleanup(() => first.stop(100));
    await expectRejection(
      serveCsi({ endpoint: `unix://${socket}`, identity, log: logs.logger }),
      hasCode('CSI_ENDPOINT_IN_USE'),
    );
    await first.stop(100);
    assert.isUndefined(await stat(socket).catch(() => undefined), 'the socket is removed on stop');
    await expectRejection(
      serveCsi({ endpoint: `unix://${socket}.marker`, identity, log: logs.logger }),
      hasCode('CSI_ENDPOINT_INVALID'),
    );
  });
});
