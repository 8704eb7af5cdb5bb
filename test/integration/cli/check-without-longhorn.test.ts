/**
 * `voe check` on a cluster that does not serve Longhorn's objects (no Longhorn CRDs): as for
 * `voe serve`, Longhorn objects count as not read, so a Longhorn volume is judged by its
 * StorageClass.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { installCrds } from '../../../src/controlplane/index.js';
import { readCrds } from '../../../src/controlplane/install-crds.js';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  harvesterSetting,
  kubeVirt,
  longhornImageClass,
  pvc,
  vm,
} from '../../support/webhook/admission-objects.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { runVoe } from '../../support/run-voe.js';

const cp = await useControlPlane({ crds: false });
await installCrds(
  cp.kubeConfig,
  (await readCrds()).filter((crd) => crd.spec.group !== 'longhorn.io'),
);
const cluster = new StagedCluster(cp.kubeConfig);
const ROOT = 'vm1-disk-0-kq8zt';
const claim = pvc(ROOT);
await cluster.apply({
  storageClasses: [longhornImageClass()],
  pvcs: [claim],
  vms: [vm('vm1')],
  kubeVirts: [kubeVirt()],
  settings: [harvesterSetting('')],
});
await cluster.bindClaims([claim]);

const voe = (args: string[]) => runVoe(['check', ...args, '--kubeconfig', cp.kubeconfigPath]);

describe('voe check without Longhorn CRDs', () => {
  it('a Longhorn volume on a cluster without Longhorn CRDs is judged by its StorageClass (--longhorn auto and on), not refused as an unknown engine', async () => {
    type Json = {
      allowed: boolean;
      decision: string;
      findings: Array<{ check: string; decision: string; outcome: string; message: string }>;
    };
    for (const mode of ['auto', 'on']) {
      const result = await voe([`default/${ROOT}`, '--size', '20Gi', '--json', '--longhorn', mode]);
      assert.strictEqual(result.code, 0, result.stdout + result.stderr);
      const longhorn = (JSON.parse(result.stdout) as Json).findings.find(
        (f) => f.check === 'longhorn',
      );
      assert.strictEqual(longhorn?.outcome, 'pass', mode);
      assert.match(longhorn?.message ?? '', /data engine v1 \(from Longhorn default\)/, mode);
    }
  });
});
