/**
 * A webhook configured with its own Setting name (`--setting`), through the real kube-apiserver:
 * the registered setting webhook receives updates of that Setting (and not of Harvester's), and a
 * PVC resize of a running VM is refused with 500 while that Setting holds invalid JSON.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { SCENARIO, stageExpansionScenario } from '../../../src/demo/expansion-scenario.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import { harvesterSetting } from '../../../src/demo/staged-objects.js';
import { eventually } from '../../support/eventually.js';
import { resizeThroughApi, type Refusal } from '../../support/webhook/resize-through-api.js';
import { serveAdmission } from '../../support/webhook/serve-admission.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const SETTING = 'voe-expand-validation';
const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);

await stageExpansionScenario(cluster);
// Written before the webhook is registered, as an operator's earlier mistake would be.
await cluster.createCustom(
  KINDS.settings,
  harvesterSetting('{"nfs.csi.k8s.io":', '{"driver.longhorn.io":true}', SETTING),
);

await serveAdmission(cp.kubeConfig, 'voe-custom-setting-test', { settingName: SETTING });

const expand = (name: string, storage: string): Promise<Refusal | undefined> =>
  resizeThroughApi(cluster, name, storage);

async function patchSetting(
  name: string,
  value: string,
): Promise<{ code?: number; body?: unknown } | undefined> {
  return cluster.patchCustom(KINDS.settings, name, { value }).then(
    () => undefined,
    (error: { code?: number; body?: unknown }) => error,
  );
}

/** Waits until the informers saw a change (the webhook reads caches, not the API). */
const until = (check: () => Promise<boolean>, what: string): Promise<void> =>
  eventually(check, 15_000, what);

describe('a webhook configured with Setting voe-expand-validation', () => {
  it('refuses a running VM disk resize with 500 while that Setting holds invalid JSON; a stopped VM disk still grows', async () => {
    const refused = await expand(SCENARIO.nfsDisk, '20Gi');
    assert.strictEqual(refused?.code, 500);
    assert.match(refused?.message ?? '', /voe-expand-validation/);
    assert.match(refused?.message ?? '', /JSON/);
    assert.isUndefined(await expand(SCENARIO.stoppedVmDisk, '20Gi'));
  });

  it('validates updates of that Setting, not of csi-online-expand-validation', async () => {
    const refused = await patchSetting(SETTING, '{"nfs.csi.k8s.io":"yes"}');
    assert.strictEqual(refused?.code, 422);
    assert.match(String(refused?.body), /SETTING_INVALID_VALUE/);
    // Harvester's own Setting is not the one this webhook guards: the API server does not call it.
    assert.isUndefined(await patchSetting('csi-online-expand-validation', '{"nfs.csi.k8s.io":'));
    assert.isUndefined(await patchSetting(SETTING, '{"nfs.csi.k8s.io":true}'));
    await until(
      async () => (await expand(SCENARIO.nfsDisk, '20Gi')) === undefined,
      'NFS expansion allowed by voe-expand-validation',
    );
  });
});
