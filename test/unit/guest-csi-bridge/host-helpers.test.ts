import { describe, it } from 'mocha';
import { assert } from 'chai';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { readExpandSetting } from '../../../src/guest-csi-bridge/controller/expand-setting.js';
import { provisionersToJudge } from '../../../src/guest-csi-bridge/controller/provisioners-to-judge.js';
import { hostResizeInfeasible } from '../../../src/guest-csi-bridge/controller/pvc-sizes.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { hostFailure, isResizeRefusal } from '../../../src/guest-csi-bridge/host/host-failure.js';
import { hostNamespaceOf } from '../../../src/guest-csi-bridge/host/host-namespace.js';
import { createHostResolver } from '../../../src/guest-csi-bridge/host/host-resolver.js';
import { KubeError } from '../../../src/kube/index.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';
import { expectThrow } from '../../support/expect-error.js';

const status = (code: number, reason: string, message: string): ApiException<string> =>
  new ApiException(
    code,
    'PATCH /api/v1/...',
    JSON.stringify({ kind: 'Status', code, reason, message }),
    {},
  );

describe('isResizeRefusal and hostFailure', () => {
  const table: Array<[string, unknown, boolean]> = [
    [
      'our webhook (PVC_EXPAND)',
      status(
        422,
        'Invalid',
        'admission webhook "pvc.voe" denied the request: PVC_EXPAND: pvc x is not online expandable',
      ),
      true,
    ],
    [
      'any webhook denial',
      status(400, 'BadRequest', 'admission webhook "x" denied the request: no'),
      true,
    ],
    [
      'API validation',
      status(
        422,
        'Invalid',
        'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
      ),
      true,
    ],
    [
      'PersistentVolumeClaimResize admission',
      status(
        403,
        'Forbidden',
        'persistentvolumeclaims "x" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
      ),
      true,
    ],
    [
      'RBAC is not a refusal of the size',
      status(
        403,
        'Forbidden',
        'persistentvolumeclaims "x" is forbidden: User "u" cannot patch resource "persistentvolumeclaims" in API group "" in the namespace "default"',
      ),
      false,
    ],
    ['conflict', status(409, 'Conflict', 'the object has been modified'), false],
    [
      "a webhook's internal error asks for a retry",
      status(
        400,
        'BadRequest',
        'admission webhook "x" denied the request: internal error: the data engine of PVC a/b cannot be determined',
      ),
      false,
    ],
    [
      'a webhook failing with 500',
      status(500, 'InternalError', 'admission webhook "x" denied the request: caches not synced'),
      false,
    ],
    ['server error', status(500, 'InternalError', 'etcd'), false],
  ];
  for (const [name, error, refused] of table)
    it(name, () => assert.strictEqual(isResizeRefusal(error), refused));

  it('no answer, 429 and 5xx: CSI_HOST_UNAVAILABLE; other answers CSI_HOST_REQUEST_FAILED', () => {
    assert.strictEqual(
      hostFailure(new KubeError('KUBE_REQUEST_FAILED', 'ECONNREFUSED'), 'reading').code,
      'CSI_HOST_UNAVAILABLE',
    );
    assert.strictEqual(
      hostFailure(status(503, 'ServiceUnavailable', 'x'), 'reading').code,
      'CSI_HOST_UNAVAILABLE',
    );
    const forbidden = hostFailure(
      status(403, 'Forbidden', 'User "u" cannot list resource "pods" in API group ""'),
      'listing pods',
    );
    assert.strictEqual(forbidden.code, 'CSI_HOST_REQUEST_FAILED');
    assert.match(
      forbidden.message,
      /listing pods: the host answered 403 Forbidden: .*check the host credentials and their RBAC/,
    );
  });
});

describe('host PVC facts', () => {
  it('provisionersToJudge: the annotation (beta key first) and the StorageClass, each once', () => {
    const pvc = (annotations: Record<string, string>) => ({ metadata: { annotations } });
    const sc = { provisioner: 'driver.longhorn.io' };
    assert.deepStrictEqual(provisionersToJudge(pvc({}), sc), ['driver.longhorn.io']);
    assert.deepStrictEqual(
      provisionersToJudge(
        pvc({ 'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io' }),
        sc,
      ),
      ['driver.longhorn.io'],
    );
    assert.deepStrictEqual(
      provisionersToJudge(
        pvc({
          'volume.beta.kubernetes.io/storage-provisioner': 'nfs.csi.k8s.io',
          'volume.kubernetes.io/storage-provisioner': 'x',
        }),
        sc,
      ),
      ['nfs.csi.k8s.io', 'driver.longhorn.io'],
    );
    assert.deepStrictEqual(provisionersToJudge(pvc({}), undefined), []);
  });
  it('hostResizeInfeasible: both spellings, with the condition message', () => {
    assert.isUndefined(hostResizeInfeasible({ status: {} }));
    assert.strictEqual(
      hostResizeInfeasible({
        status: {
          allocatedResourceStatuses: { storage: 'NodeResizeInfeasible' },
          conditions: [{ type: 'NodeResizeError', message: 'm' }],
        },
      }),
      'NodeResizeInfeasible: m',
    );
    assert.strictEqual(
      hostResizeInfeasible({
        status: { allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' } },
      }),
      undefined,
    );
  });
  describe("hostResizeInfeasible: an old resizer's *ResizeFailed counts only when its message says infeasible", () => {
    const failed = (state: string, message: string | undefined) => ({
      status: {
        allocatedResourceStatuses: { storage: state },
        ...(message === undefined
          ? {}
          : { conditions: [{ type: 'ControllerResizeError', message }] }),
      },
    });
    const table: Array<[string, string | undefined, string | undefined]> = [
      [
        'ControllerResizeFailed',
        'resize volume "pvc-1" by resizer "driver.longhorn.io" failed: rpc error: code = OutOfRange desc = no space',
        'ControllerResizeFailed: resize volume "pvc-1" by resizer "driver.longhorn.io" failed: rpc error: code = OutOfRange desc = no space',
      ],
      [
        'ControllerResizeFailed',
        'rpc error: code = InvalidArgument desc = not validated',
        'ControllerResizeFailed: rpc error: code = InvalidArgument desc = not validated',
      ],
      [
        'ControllerResizeFailed',
        'rpc error: code = Internal desc = timeout talking to the backend',
        undefined,
      ],
      [
        'ControllerResizeFailed',
        'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
        undefined,
      ],
      ['ControllerResizeFailed', undefined, undefined],
      ['NodeResizeFailed', 'resize2fs: device busy', undefined],
      ['ControllerResizeInfeasible', 'anything', 'ControllerResizeInfeasible: anything'],
    ];
    for (const [state, message, expected] of table)
      it(`${state} "${message ?? '(no condition)'}" -> ${expected === undefined ? 'not infeasible' : 'infeasible'}`, () =>
        assert.strictEqual(hostResizeInfeasible(failed(state, message)), expected));
  });
  it('readExpandSetting: parsed, missing (Harvester default), invalid', () => {
    assert.strictEqual(readExpandSetting({ value: '{"a.io":true}' }).state, 'parsed');
    const missing = readExpandSetting(undefined);
    assert.isTrue(missing.state === 'missing' && missing.validation.allows('driver.longhorn.io'));
    assert.strictEqual(readExpandSetting({ value: '{' }).state, 'invalid');
  });
});

const KUBECONFIG = (namespace?: string, token = 's3cr3t-token-value') =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'h', cluster: { server: 'https://harvester.example:6443' } }],
    users: [{ name: 'u', user: { token } }],
    contexts: [
      { name: 'c', context: { cluster: 'h', user: 'u', ...(namespace ? { namespace } : {}) } },
    ],
    'current-context': 'c',
  });

describe('host credentials from secrets', () => {
  const fakeHost = (namespace: string): HostApi => ({ namespace }) as HostApi;

  it('hostNamespaceOf: the context namespace, else default', () => {
    const kc = new KubeConfig();
    kc.loadFromString(KUBECONFIG('guests'));
    assert.strictEqual(hostNamespaceOf(kc), 'guests');
    kc.loadFromString(KUBECONFIG());
    assert.strictEqual(hostNamespaceOf(kc), 'default');
  });

  it('no kubeconfig secret: the default host; a kubeconfig secret: its own host, made once', () => {
    let made = 0;
    const resolver = createHostResolver(fakeHost('default-ns'), (kc) => {
      made++;
      return fakeHost(hostNamespaceOf(kc));
    });
    assert.strictEqual(resolver.forSecrets(undefined).namespace, 'default-ns');
    assert.strictEqual(resolver.forSecrets({ other: 'x' }).namespace, 'default-ns');
    assert.strictEqual(
      resolver.forSecrets({ kubeconfig: KUBECONFIG('tenant-a') }).namespace,
      'tenant-a',
    );
    assert.strictEqual(
      resolver.forSecrets({ kubeconfig: KUBECONFIG('tenant-a') }).namespace,
      'tenant-a',
    );
    assert.strictEqual(made, 1);
  });

  it('a kubeconfig secret that would read a node file or run a program is refused before it is loaded', () => {
    const resolver = createHostResolver(fakeHost('d'), () => fakeHost('x'));
    const base = JSON.parse(KUBECONFIG()) as {
      users: Array<{ user: Record<string, unknown> }>;
      clusters: Array<{ cluster: Record<string, unknown> }>;
    };
    const variants: Array<[string, (doc: typeof base) => void]> = [
      ['exec', (doc) => (doc.users[0]!.user['exec'] = { command: '/bin/sh', args: ['-c', 'id'] })],
      ['token-file', (doc) => (doc.users[0]!.user['token-file'] = '/etc/shadow')],
      ['client-key', (doc) => (doc.users[0]!.user['client-key'] = '/etc/kubernetes/pki/admin.key')],
      ['auth-provider', (doc) => (doc.users[0]!.user['auth-provider'] = { name: 'oidc' })],
      [
        'certificate-authority',
        (doc) => (doc.clusters[0]!.cluster['certificate-authority'] = '/etc/ca.crt'),
      ],
    ];
    for (const [field, change] of variants) {
      const doc = structuredClone(base);
      change(doc);
      expectThrow(
        () => resolver.forSecrets({ kubeconfig: JSON.stringify(doc) }),
        hasCode(
          'CSI_HOST_CREDENTIALS_INVALID',
          new RegExp(
            `sets (users|clusters)\\[\\]\\.(user|cluster)\\.${field}: from a secret only inline credentials`,
          ),
        ),
      );
    }
  });

  it('an unusable kubeconfig secret is CSI_HOST_CREDENTIALS_INVALID and its text is never quoted', () => {
    const resolver = createHostResolver(fakeHost('d'), () => fakeHost('x'));
    for (const text of [
      'token: s3cr3t-token-value: [',
      KUBECONFIG().replace('"current-context":"c"', '"current-context":"missing"'),
    ]) {
      const error = expectThrow(
        () => resolver.forSecrets({ kubeconfig: text }),
        hasCode('CSI_HOST_CREDENTIALS_INVALID'),
      ) as Error;
      assert.notInclude(error.message, 's3cr3t');
      assert.notInclude(JSON.stringify(error), 's3cr3t');
      assert.isUndefined(error.cause);
    }
  });
});
