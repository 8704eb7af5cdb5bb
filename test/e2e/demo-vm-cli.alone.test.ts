/**
 * `voe demo --vm` as a user runs it (as root): it installs the VM lab through the project's
 * installer, starts its own control plane, boots a real libvirt domain and follows one resize to
 * the guest's measured bytes; then nothing of it is left running. Alone: it boots a VM.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { VmDemoReport } from '../../src/demo/index.js';
import { LOCAL_LIBVIRT_URI } from '../../src/vmwatcher/probe/local-virsh.js';
import { runVoe } from '../support/run-voe.js';
import { controlPlaneTestEnv, testCacheDir } from '../support/use-control-plane.js';

const GI = 1024n ** 3n;

it("voe demo --vm --json: the PVC edit through the webhook, the peers, virsh blockresize, Completed with the guest's bytes", async () => {
  const env: NodeJS.ProcessEnv = { ...controlPlaneTestEnv(), VOE_CACHE_DIR: testCacheDir() };
  delete env['KUBECONFIG'];
  const { code, stdout, stderr } = await runVoe(['demo', '--vm', '--json'], {
    env,
    timeout: 600_000,
  });
  assert.strictEqual(code, 0, stderr);
  assert.include(stderr, "installing the VM lab through the project's installer");
  const report = JSON.parse(stdout) as VmDemoReport;
  assert.isTrue(report.ok, JSON.stringify(report.expansion, null, 1));
  assert.strictEqual(report.domain, 'vm-lab_demo-vm');
  const timeline = report.expansion.timeline;
  assert.deepStrictEqual(
    timeline.map((entry) => `${entry.actor}: ${entry.phase}`),
    [
      'voe webhook: ControllerResizing',
      'external-resizer: ControllerResizing',
      'external-resizer: NodeResizePending',
      'kubelet: NodeResizing',
      'kubelet: VMUpdating',
      'virt-controller: HypervisorResizing',
      'virt-handler: Completed',
    ],
  );
  assert.strictEqual(timeline[5]!.hypervisor, String(GI));
  assert.strictEqual(timeline[6]!.hypervisor, String(2n * GI));
  assert.strictEqual(timeline[6]!.guest, String(2n * GI));
  assert.isAbove(timeline[6]!.atMs ?? 0, timeline[5]!.atMs ?? 0);
  // The domain is gone.
  const { stdout: domains } = await promisify(execFile)('virsh', [
    '-c',
    LOCAL_LIBVIRT_URI,
    'list',
    '--all',
    '--name',
  ]).catch(() => ({ stdout: '' }));
  assert.notInclude(domains, 'vm-lab_demo-vm');
});
