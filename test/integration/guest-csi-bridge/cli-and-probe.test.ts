/**
 * `voe csi` as a user runs it, without a host API server: the command's options and start-up
 * errors, and a Probe that stays ready while the host does not answer (liveness is the process;
 * the host's reachability is voe_csi_host_reachable on /metrics).
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeConfig } from '../../../src/kube/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { startTestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { runVoe } from '../../support/run-voe.js';
import {
  UNREACHABLE_TOKEN,
  writeUnreachableKubeconfig,
} from '../../support/unreachable-kubeconfig.js';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-csi-cli-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('voe csi: command line and Probe', function () {
  this.timeout(60_000);

  it('Probe answers ready=true while the host API does not answer (no restarts during a host upgrade), the controller still serves, the start-up log says the host does not answer, and /metrics shows voe_csi_host_reachable 0', async () => {
    const dir = await tempDir();
    const logs = captureLogger('info');
    const csi = await startTestDriver(
      loadKubeConfig(await writeUnreachableKubeconfig(dir)),
      join(dir, 'by-id'),
      logs.logger,
      {
        services: 'controller',
        metrics: { host: '127.0.0.1', port: 0 },
      },
    );
    onCleanup(() => csi.stop());
    assert.deepStrictEqual(await csi.client.call('Identity', 'Probe'), { ready: { value: true } });
    const info = await csi.client.call<{ name: string }>('Identity', 'GetPluginInfo');
    assert.strictEqual(info.name, 'driver.harvesterhci.io');
    const capabilities = await csi.client.call<{ capabilities: Array<Record<string, unknown>> }>(
      'Identity',
      'GetPluginCapabilities',
    );
    assert.deepStrictEqual(
      capabilities.capabilities.map(({ service, volume_expansion }) => service ?? volume_expansion),
      [{ type: 'CONTROLLER_SERVICE' }, { type: 'ONLINE' }],
    );
    await eventually(
      async () => /the host API does not answer yet/.test(logs.text()),
      20_000,
      'the start-up log line about the host',
    );
    assert.notInclude(logs.text(), UNREACHABLE_TOKEN);
    const metrics = await fetch(`${csi.driver.metricsUrl!}/metrics`);
    assert.strictEqual(metrics.status, 200);
    assert.match(await metrics.text(), /^voe_csi_host_reachable 0$/m);
    assert.deepStrictEqual(await csi.client.call('Identity', 'Probe'), { ready: { value: true } });
  });

  it('--help lists the options; a bad endpoint or a missing kubeconfig is an error with its code', async () => {
    const help = await runVoe(['csi', '--help']);
    assert.strictEqual(help.code, 0);
    for (const option of [
      '--endpoint',
      '--node-id',
      '--node-name',
      '--kubeconfig',
      '--driver-name',
      '--host-storage-class',
      '--services',
      '--device-dir',
      '--default-fs-type',
      '--metrics-port',
      '--metrics-bind-address',
      '--node-monitor',
      '--guest-kubeconfig',
      '--node-monitor-lease-namespace',
    ])
      assert.include(help.stdout, option);
    const dir = await tempDir();
    const kubeconfig = await writeUnreachableKubeconfig(dir);
    const relative = await runVoe([
      'csi',
      '--endpoint',
      'unix://relative.sock',
      '--kubeconfig',
      kubeconfig,
      '--node-id',
      'n',
    ]);
    assert.strictEqual(relative.code, 2);
    assert.match(relative.stderr, /CSI_ENDPOINT_INVALID/);
    const missing = await runVoe([
      'csi',
      '--endpoint',
      `unix://${join(dir, 'csi.sock')}`,
      '--kubeconfig',
      join(dir, 'nope'),
    ]);
    assert.strictEqual(missing.code, 2);
    assert.match(missing.stderr, /KUBE_KUBECONFIG_INVALID/);
    const monitorOnNode = await runVoe([
      'csi',
      '--endpoint',
      `unix://${join(dir, 'csi.sock')}`,
      '--services',
      'node',
      '--node-id',
      'n',
      '--node-monitor',
      '--guest-kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(monitorOnNode.code, 2);
    assert.match(monitorOnNode.stderr, /CSI_NODE_MONITOR_NEEDS_CONTROLLER/);
  });
});
