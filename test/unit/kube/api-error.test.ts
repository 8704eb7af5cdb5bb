import { it } from 'mocha';
import { assert } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import {
  apiErrorOf,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  resourcePath,
  splitKey,
} from '../../../src/kube/index.js';
import { objectKey } from '../../../src/kube/object-key.js';

const status = (code: number, reason: string, message: string) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });

it('apiErrorOf parses the raw Status text in ApiException.body', () => {
  const e = new ApiException(409, 'x', status(409, 'Conflict', 'the object has been modified'), {});
  assert.deepStrictEqual(apiErrorOf(e), {
    code: 409,
    reason: 'Conflict',
    message: 'the object has been modified',
  });
  assert.ok(isConflict(e));
  assert.ok(!isNotFound(e));
});

it('apiErrorOf: non-JSON body, watch ERROR Status objects, plain errors', () => {
  assert.deepStrictEqual(apiErrorOf(new ApiException(503, 'x', 'upstream down', {})), {
    code: 503,
    reason: '',
    message: 'upstream down',
  });
  const gone = {
    kind: 'Status',
    code: 410,
    reason: 'Expired',
    message: 'too old resource version: 1 (5)',
  };
  assert.ok(isGone(gone));
  assert.strictEqual(apiErrorOf(gone)?.code, 410);
  assert.deepStrictEqual(apiErrorOf(new Error('ECONNREFUSED')), {
    code: 0,
    reason: '',
    message: 'ECONNREFUSED',
  });
  assert.isUndefined(apiErrorOf('nope'));
  assert.ok(
    isNotFound(new ApiException(404, 'x', status(404, 'NotFound', 'leases "x" not found'), {})),
  );
  const exists = new ApiException(409, 'x', status(409, 'AlreadyExists', 'exists'), {});
  assert.ok(isAlreadyExists(exists));
  assert.ok(!isConflict(exists), 'AlreadyExists is not an update conflict');
});

it('resourcePath for core and custom resources, namespaced and cluster-scoped', () => {
  assert.strictEqual(
    resourcePath({
      group: '',
      version: 'v1',
      plural: 'persistentvolumeclaims',
      namespace: 'ns',
      name: 'd',
    }),
    '/api/v1/namespaces/ns/persistentvolumeclaims/d',
  );
  assert.strictEqual(
    resourcePath(
      {
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachines',
        namespace: 'ns',
        name: 'vm',
      },
      'status',
    ),
    '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm/status',
  );
  assert.strictEqual(
    resourcePath({ group: 'core', version: 'v1', plural: 'persistentvolumes' }),
    '/api/v1/persistentvolumes',
  );
  assert.strictEqual(objectKey({ metadata: { namespace: 'a', name: 'b' } }), 'a/b');
  assert.strictEqual(objectKey({ metadata: { name: 'b' } }), 'b');
  assert.deepStrictEqual(splitKey('a/b'), { namespace: 'a', name: 'b' });
  assert.deepStrictEqual(splitKey('b'), { namespace: undefined, name: 'b' });
});
