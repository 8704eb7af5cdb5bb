/**
 * readOptionalList (voe check, the demo survey) against the real kube-apiserver: through a fault
 * proxy (test/support/fault-proxy.ts) for the answers only something in between gives (a spurious
 * 404, discovery failing), and with CRDs really deleted for a resource that is really gone.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';
import { CheckError } from '../../../src/check/check-error.js';
import { readOptionalList } from '../../../src/check/read-optional.js';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js';
import { deleteCrd, resourceOf, testCrd } from '../../support/test-crd.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();

type Resource = { group: string; version: string; plural: string };

describe('a list answered 404 reads as empty only when discovery confirms the resource is not served (voe check, the demo survey)', () => {
  let proxy: FaultProxy;
  let custom: CustomObjectsApi;
  before(async () => {
    proxy = await startFaultProxy(cp.kubeConfig);
    custom = proxy.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  // proxy is unset when the before hook failed
  after(() => proxy?.close());
  const read = (resource: Resource) =>
    readOptionalList(`${resource.plural} in default`, proxy.kubeConfig, resource, () =>
      custom.listNamespacedCustomObject({ ...resource, namespace: 'default' }),
    );
  const kindOf = (list: unknown): unknown => (list as { kind?: unknown } | undefined)?.kind;
  const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };

  it('a served resource reads as its list', async () => {
    assert.strictEqual(kindOf(await read(VMS)), 'VirtualMachineList');
  });

  it('a 404 while discovery lists the resource (a proxy in between, kubernetes#115241) is a failure to try again, not "none"', async () => {
    proxy.inject(
      { path: '/apis/kubevirt.io/v1/namespaces/default/virtualmachines' },
      { answer: 404 },
    );
    await expectRejection(
      read(VMS),
      (error: unknown) =>
        error instanceof CheckError &&
        error.code === 'CHECK_API_FAILED' &&
        /answered 404 although the cluster serves virtualmachines\.kubevirt\.io \(discovery lists it\).*Try again\./.test(
          error.message,
        ),
    );
  });

  it('a 404 when discovery cannot be read (500) is a failure too', async () => {
    proxy.inject({ path: '/apis/kubevirt.io/v1' }, { answer: 500, message: 'etcd timeout' });
    try {
      await expectRejection(
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
    it(variant.name, async () => {
      const resource = resourceOf(variant.crd);
      await installCrds(cp.kubeConfig, [variant.crd, ...variant.others]);
      assert.strictEqual(kindOf(await read(resource)), 'WidgetList', 'served while its CRD exists');
      await deleteCrd(cp.kubeConfig, variant.crd);
      const asked = proxy.requests.length;
      assert.isUndefined(await read(resource));
      const answers = proxy.requests
        .slice(asked)
        .map((r) => `${r.path} ${r.status} ${r.injected ? 'injected' : 'from the API server'}`);
      assert.deepStrictEqual(answers, [
        `/apis/${resource.group}/v1/namespaces/default/widgets 404 from the API server`,
        `/apis/${resource.group}/v1 ${variant.discovery} from the API server`,
      ]);
    });
  }
});
