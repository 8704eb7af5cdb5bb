/**
 * `voe demo --vm` as a user runs it (as root): it installs the VM lab through the project's
 * installer, starts its own control plane, boots a real libvirt domain with an ext4 filesystem
 * mounted on its disk (the VM opted in to guest growth) and follows one resize to the guest's
 * measured bytes, then to its grown filesystem (df before and after); then nothing of it is left
 * running. Alone: it boots a VM.
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

it("voe demo --vm --json: the PVC edit through the webhook, the peers, virsh blockresize, the guest's filesystem grown by the tracker, df before and after", async () => {
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
      'virt-handler: GuestFilesystemGrowing',
      'voe tracker: Completed',
    ],
  );
  assert.strictEqual(timeline[6]!.reason, 'GrowingGuestFilesystem');
  assert.strictEqual(timeline[7]!.reason, 'GuestFilesystemGrown');
  assert.strictEqual(timeline[5]!.hypervisor, String(GI));
  assert.strictEqual(timeline[6]!.hypervisor, String(2n * GI));
  assert.strictEqual(timeline[6]!.guest, String(2n * GI));
  assert.strictEqual(timeline[7]!.guest, String(2n * GI));
  assert.isAbove(timeline[6]!.atMs ?? 0, timeline[5]!.atMs ?? 0);
  assert.isAbove(timeline[7]!.atMs ?? 0, timeline[6]!.atMs ?? 0);
  // The tracker recorded the filesystem's growth; the guest's own df shows it: about the disk's 1 GiB.
  const grown = timeline[7]!.guestFilesystem;
  assert.strictEqual(grown?.result, 'Grown', JSON.stringify(grown));
  assert.strictEqual(grown?.mountPoint, '/mnt/data');
  assert.isAbove(Number(grown?.afterBytes) - Number(grown?.beforeBytes), 0.9 * Number(GI));
  const { before, after } = report.df;
  assert.isDefined(after);
  assert.strictEqual(before.mountPoint, '/mnt/data');
  const growth = Number(after!.sizeBytes) - Number(before.sizeBytes);
  assert.isAbove(growth, 0.9 * Number(GI), JSON.stringify(report.df));
  assert.isAtMost(growth, Number(GI), JSON.stringify(report.df));
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
