/**
 * A chart upgrade changes the VolumeExpansion CRD, on a real kube-apiserver: the chart as its
 * previous version (a copy with an older version, no CRD hook, and a CRD without spec.vmName) is
 * installed with `helm install --no-hooks`, its CRD served; `helm upgrade --no-hooks` to the current
 * chart leaves that CRD as it was (Helm never upgrades crds/), then the pre-upgrade hook's command
 * (`voe crds apply`) runs as a process with the hook's ServiceAccount credentials. The served CRD
 * then has the field, an object using it keeps it, and a second run changes nothing.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { cp as copy, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { installCrds } from '../../../src/controlplane/index.js';
import {
  ensureNamespaces,
  isAllowed,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
} from '../../support/charts/cluster.js';
import {
  HOST_CHART,
  repoRoot,
  useHelm,
  type Helm,
  type Rendered,
} from '../../support/charts/render.js';
import { eventually } from '../../support/eventually.js';
import { runVoe } from '../../support/run-voe.js';

const NAMESPACE = 'voe-system';
const CRD = 'volumeexpansions.storage.voe.dev';
const RESOURCE = { group: 'storage.voe.dev', version: 'v1alpha1', plural: 'volumeexpansions' };
const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'];

interface Schema {
  properties?: Record<string, Schema>;
  [key: string]: unknown;
}

/** The v1alpha1 openAPIV3Schema of a CRD as the wire has it. */
function schemaOf(crd: unknown): Schema {
  const versions = (
    crd as { spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: Schema } }> } }
  ).spec.versions;
  return versions.find((v) => v.name === 'v1alpha1')!.schema.openAPIV3Schema;
}

function specFields(crd: unknown): string[] {
  return Object.keys(schemaOf(crd).properties!['spec']!.properties!).sort();
}

describe('the host chart upgraded from its previous version: the pre-upgrade hook voe crds apply serves the changed VolumeExpansion CRD', function () {
  this.timeout(10 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;
  let dir: string;
  let previousChart: string;
  let manifest: Record<string, unknown>;
  let kubeconfig: string;

  before(async () => {
    helm = await useHelm();
    dir = await mkdtemp(join(tmpdir(), 'voe-crd-upgrade-'));
    previousChart = join(dir, 'volume-online-expansion');
    await copy(join(repoRoot(), HOST_CHART), previousChart, { recursive: true });
    const chartFile = join(previousChart, 'Chart.yaml');
    const chart = parse(await readFile(chartFile, 'utf8')) as Record<string, unknown>;
    await writeFile(chartFile, stringify({ ...chart, version: '0.0.9', appVersion: '0.0.9' }));
    await rm(join(previousChart, 'templates/crds-hook.yaml'));
    const crdFile = join(previousChart, 'crds/volumeexpansion.yaml');
    manifest = parse(await readFile(crdFile, 'utf8')) as Record<string, unknown>;
    const previous = structuredClone(manifest);
    delete schemaOf(previous).properties!['spec']!.properties!['vmName'];
    await writeFile(crdFile, stringify(previous));
    kubeconfig = cp.current.kubeconfigPath;
    // The cluster as the previous version left it: its CRD served (helm install skips an existing CRD).
    await installCrds(cp.current.kubeConfig, [previous as unknown as V1CustomResourceDefinition]);
    await ensureNamespaces(cp.current.kubeConfig, [
      NAMESPACE,
      'harvester-system',
      'longhorn-system',
      'vms',
    ]);
  });
  after(async () => {
    await helm?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const servedCrd = async (): Promise<Record<string, unknown>> =>
    (await cp.current.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      name: CRD,
    })) as Record<string, unknown>;

  /** Creates a VolumeExpansion with spec.vmName; resolves with the spec the API server stored. */
  async function createWithVmName(name: string): Promise<Record<string, unknown>> {
    const custom = cp.current.kubeConfig.makeApiClient(CustomObjectsApi);
    let spec: Record<string, unknown> | undefined;
    await eventually(
      async () => {
        const created = (await custom.createNamespacedCustomObject({
          ...RESOURCE,
          namespace: 'vms',
          body: {
            apiVersion: 'storage.voe.dev/v1alpha1',
            kind: 'VolumeExpansion',
            metadata: { name },
            spec: { pvcName: 'data', vmName: 'vm-1', to: '2Gi' },
          },
        })) as { spec: Record<string, unknown> };
        spec = created.spec;
        return true;
      },
      30_000,
      `create VolumeExpansion vms/${name}`,
    );
    return spec!;
  }

  async function run(helmArgs: string[]): Promise<void> {
    const result = await helm.run([
      ...helmArgs,
      '--namespace',
      NAMESPACE,
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(result.code, 0, result.stderr);
  }

  let hookArgs: string[];
  let hookKubeconfig: string;

  it('installs the previous version, whose CRD has no spec.vmName: a field it does not know is pruned', async () => {
    await run(['install', 'voe', previousChart, '--no-hooks']);
    assert.notInclude(specFields(await servedCrd()), 'vmName');
    assert.notProperty(await createWithVmName('before-upgrade'), 'vmName');
  });

  it('helm upgrade to the current chart alone leaves the CRD as it was (Helm never upgrades crds/)', async () => {
    await run(['upgrade', 'voe', join(repoRoot(), HOST_CHART), '--no-hooks']);
    assert.notInclude(specFields(await servedCrd()), 'vmName');
    const hooksOut = await helm.run([
      'get',
      'hooks',
      'voe',
      '--namespace',
      NAMESPACE,
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(hooksOut.code, 0, hooksOut.stderr);
    const hooks = parseAllDocuments(hooksOut.stdout)
      .map((doc) => doc.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null && o.metadata?.name === 'voe-crds-hook');
    const job = hooks.find((o) => o.kind === 'Job')!;
    assert.include(job.metadata!.annotations!['helm.sh/hook']!.split(','), 'pre-upgrade');
    for (const object of hooks.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
      await serverSideApply(cp.current.kubeConfig, object);
    const pod = (
      job['spec'] as {
        template: { spec: { serviceAccountName: string; containers: Array<{ args: string[] }> } };
      }
    ).template.spec;
    hookArgs = pod.containers[0]!.args;
    const account = serviceAccount(NAMESPACE, pod.serviceAccountName);
    hookKubeconfig = (await cp.current.mintKubeConfig(account.user, account.groups)).path;
    const kc = cp.current.kubeConfig;
    await eventually(
      () =>
        isAllowed(kc, account, {
          verb: 'patch',
          resource: 'customresourcedefinitions',
          group: 'apiextensions.k8s.io',
          name: CRD,
        }),
      30_000,
      'the hook ServiceAccount may patch its CRD',
    );
    for (const other of ['virtualmachines.kubevirt.io', 'settings.harvesterhci.io'])
      for (const verb of ['get', 'patch', 'update', 'delete'])
        assert.isFalse(
          await isAllowed(kc, account, {
            verb,
            resource: 'customresourcedefinitions',
            group: 'apiextensions.k8s.io',
            name: other,
          }),
          `${verb} ${other}`,
        );
  });

  it('the pre-upgrade hook command, as its ServiceAccount, serves the new field: an object keeps spec.vmName', async () => {
    const result = await runVoe([...hookArgs, '--kubeconfig', hookKubeconfig], {
      timeout: 120_000,
    });
    assert.strictEqual(result.code, 0, result.stderr);
    assert.strictEqual(result.stdout, `${CRD}: applied, Established\n`);
    const served = await servedCrd();
    assert.include(specFields(served), 'vmName');
    assert.deepStrictEqual(
      schemaOf(served),
      schemaOf(manifest),
      'the schema as shipped, enums included',
    );
    const managers = (
      served['metadata'] as { managedFields: Array<{ manager: string; operation: string }> }
    ).managedFields;
    assert.deepInclude(
      managers.map((m) => ({ manager: m.manager, operation: m.operation })),
      { manager: 'voe', operation: 'Apply' },
    );
    const established = await cp.current.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: CRD });
    assert.isTrue(
      established.status!.conditions!.some((c) => c.type === 'Established' && c.status === 'True'),
    );
    assert.strictEqual((await createWithVmName('after-upgrade'))['vmName'], 'vm-1');
  });

  it('a second run changes nothing', async () => {
    const before = ((await servedCrd())['metadata'] as { resourceVersion: string }).resourceVersion;
    const result = await runVoe([...hookArgs, '--kubeconfig', hookKubeconfig], {
      timeout: 120_000,
    });
    assert.strictEqual(result.code, 0, result.stderr);
    assert.strictEqual(result.stdout, `${CRD}: unchanged, Established\n`);
    const after = ((await servedCrd())['metadata'] as { resourceVersion: string }).resourceVersion;
    assert.strictEqual(after, before);
  });
});
