/**
 * The host chart's optional integrations (ServiceMonitor, PrometheusRule, cert-manager) against a
 * real API server that serves none of their APIs: `helm install --dry-run=server` asks the cluster
 * (discovery and lookup) and stores nothing. Forced on, each fails the install naming the missing
 * API; `auto` leaves them out.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import { HOST_CHART, repoRoot, useHelm, type Helm } from '../../support/charts/render.js';
import type { HelmResult } from '../../support/charts/helm.js';
import { useSharedControlPlane } from '../../support/shared-control-plane.js';

const { kubeconfigPath, namespace } = await useSharedControlPlane('optional-apis');

const FORCED_ON: Array<{ set: string; api: string }> = [
  { set: 'metrics.serviceMonitor.enabled=true', api: 'monitoring.coreos.com/v1/ServiceMonitor' },
  { set: 'metrics.prometheusRule.enabled=true', api: 'monitoring.coreos.com/v1/PrometheusRule' },
  { set: 'certificates.mode=cert-manager', api: 'cert-manager.io/v1/Certificate' },
];

describe('the host chart on a cluster without the optional integrations’ APIs', function () {
  let helm: Helm;

  before(async function () {
    this.timeout(15 * 60_000);
    helm = await useHelm();
  });
  after(async () => {
    await helm?.cleanup();
  });

  /** helm install --dry-run=server of the host chart with `sets`, against the shared control plane. */
  function dryRun(sets: string[]): Promise<HelmResult> {
    return helm.run([
      'install',
      'voe',
      join(repoRoot(), HOST_CHART),
      '--namespace',
      namespace,
      '--dry-run=server',
      ...sets.flatMap((set) => ['--set', set]),
      '--kubeconfig',
      kubeconfigPath,
    ]);
  }

  for (const { set, api } of FORCED_ON) {
    it(`${set} fails the install, saying the cluster does not serve ${api}`, async () => {
      const result = await dryRun([set]);
      assert.notStrictEqual(result.code, 0, result.stdout);
      assert.include(result.stderr, `the cluster does not serve ${api}`);
    });
  }

  it('auto renders neither a ServiceMonitor nor a PrometheusRule, and the install goes on', async () => {
    const result = await dryRun([
      'metrics.serviceMonitor.enabled=auto',
      'metrics.prometheusRule.enabled=auto',
    ]);
    assert.strictEqual(result.code, 0, result.stderr);
    assert.include(result.stdout, 'kind: ValidatingWebhookConfiguration');
    assert.notInclude(result.stdout, 'kind: ServiceMonitor');
    assert.notInclude(result.stdout, 'kind: PrometheusRule');
  });
});
