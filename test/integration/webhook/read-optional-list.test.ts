/**
 * readOptionalList (voe check, the demo survey) against the real kube-apiserver: through a fault
 * proxy (test/support/fault-proxy.ts) for the answers only something in between gives (a spurious
 * 404, discovery failing), and with CRDs really deleted for a resource that is really gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';
import { CheckError } from '../../../src/webhook/index.js';
import { readOptionalList } from '../../../src/webhook/read-optional.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { deleteCrd, resourceOf, testCrd } from '../../support/test-crd.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();

test('a list answered 404 reads as empty only when discovery confirms the resource is not served (voe check, the demo survey)', async (t) => {
  const proxy = await startFaultProxy(cp.kubeConfig);
  t.after(() => proxy.close());
  const custom = proxy.kubeConfig.makeApiClient(CustomObjectsApi);
  type Resource = { group: string; version: string; plural: string };
  const read = (resource: Resource) =>
    readOptionalList(`${resource.plural} in default`, proxy.kubeConfig, resource, () =>
      custom.listNamespacedCustomObject({ ...resource, namespace: 'default' }),
    );
  const kindOf = (list: unknown): unknown => (list as { kind?: unknown } | undefined)?.kind;
  const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };

  await t.test('a served resource reads as its list', async () => {
    assert.equal(kindOf(await read(VMS)), 'VirtualMachineList');
  });

  await t.test(
    'a 404 while discovery lists the resource (a proxy in between, kubernetes#115241) is a failure to try again, not "none"',
    async () => {
      proxy.inject(
        { path: '/apis/kubevirt.io/v1/namespaces/default/virtualmachines' },
        { answer: 404 },
      );
      await assert.rejects(
        read(VMS),
        (error: unknown) =>
          error instanceof CheckError &&
          error.code === 'CHECK_API_FAILED' &&
          /answered 404 although the cluster serves virtualmachines\.kubevirt\.io \(discovery lists it\).*Try again\./.test(
            error.message,
          ),
      );
    },
  );

  await t.test('a 404 when discovery cannot be read (500) is a failure too', async () => {
    proxy.inject({ path: '/apis/kubevirt.io/v1' }, { answer: 500, message: 'etcd timeout' });
    try {
      await assert.rejects(
        read(VMS),
        (error: unknown) =>
          error instanceof CheckError &&
          error.code === 'CHECK_API_FAILED' &&
          /answered 404, and discovery could not be read.*HTTP-Code: 500/.test(error.message),
      );
    } finally {
      proxy.heal();
    }
  });

  const gone = [
    {
      name: 'a CRD deleted while its group serves others reads as none (discovery answers without it)',
      crd: testCrd('leftover.voe.test', 'widgets', 'Widget'),
      others: [testCrd('leftover.voe.test', 'gadgets', 'Gadget')],
      discovery: 200,
    },
    {
      name: 'a CRD deleted with its whole group/version reads as none (discovery answers 404)',
      crd: testCrd('gone.voe.test', 'widgets', 'Widget'),
      others: [],
      discovery: 404,
    },
  ];
  for (const variant of gone) {
    await t.test(variant.name, async () => {
      const resource = resourceOf(variant.crd);
      await installCrds(cp.kubeConfig, [variant.crd, ...variant.others]);
      assert.equal(kindOf(await read(resource)), 'WidgetList', 'served while its CRD exists');
      await deleteCrd(cp.kubeConfig, variant.crd);
      const asked = proxy.requests.length;
      assert.equal(await read(resource), undefined);
      const answers = proxy.requests
        .slice(asked)
        .map((r) => `${r.path} ${r.status} ${r.injected ? 'injected' : 'from the API server'}`);
      assert.deepEqual(answers, [
        `/apis/${resource.group}/v1/namespaces/default/widgets 404 from the API server`,
        `/apis/${resource.group}/v1 ${variant.discovery} from the API server`,
      ]);
    });
  }
});
