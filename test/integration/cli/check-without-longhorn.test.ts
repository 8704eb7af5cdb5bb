/**
 * `voe check --longhorn auto` on a cluster that does not serve Longhorn's objects (no Longhorn
 * CRDs): as `voe serve --longhorn auto`, Longhorn objects count as not read, so a Longhorn volume
 * is judged by its StorageClass; with `--longhorn on` they count as read and missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { installCrds, readCrds } from '../../../src/controlplane/index.js';
import { StagedCluster } from '../../../src/demo/index.js';
import { harvesterSetting, kubeVirt, longhornImageClass, pvc, vm } from '../../support/admission-objects.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const cp = await useControlPlane({ crds: false });
await installCrds(cp.kubeConfig, (await readCrds()).filter((crd) => crd.spec.group !== 'longhorn.io'));
const cluster = new StagedCluster(cp.kubeConfig);
const ROOT = 'vm1-disk-0-kq8zt';
const claim = pvc(ROOT);
await cluster.apply({
  storageClasses: [longhornImageClass()], pvcs: [claim], vms: [vm('vm1')],
  kubeVirts: [kubeVirt()], settings: [harvesterSetting('')],
});
await cluster.bindClaims([claim]);

function voe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'check', ...args, '--kubeconfig', cp.kubeconfigPath], (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

test('a Longhorn volume on a cluster without Longhorn CRDs: --longhorn auto judges it by its StorageClass; --longhorn on finds no Volume of the PV', async () => {
  type Json = { allowed: boolean; decision: string; findings: Array<{ check: string; decision: string; outcome: string; message: string }> };
  const auto = await voe([`default/${ROOT}`, '--size', '20Gi', '--json']);
  assert.equal(auto.code, 0, auto.stdout + auto.stderr);
  const longhornAuto = (JSON.parse(auto.stdout) as Json).findings.find((f) => f.check === 'longhorn');
  assert.equal(longhornAuto?.outcome, 'pass');
  assert.match(longhornAuto?.message ?? '', /data engine v1 \(from Longhorn default\)/);

  const on = await voe([`default/${ROOT}`, '--size', '20Gi', '--json', '--longhorn', 'on']);
  assert.equal(on.code, 1, on.stdout + on.stderr);
  const result = JSON.parse(on.stdout) as Json;
  assert.equal(result.decision, 'longhorn-volume-unknown');
  assert.match(result.findings.find((f) => f.check === 'longhorn')?.message ?? '', /^internal error: the data engine of PVC default\/vm1-disk-0-kq8zt cannot be determined/);
});
