import { it } from 'mocha';
import { assert } from 'chai';
import { parseAdmissionReview } from '../../../../src/webhook/review/parse-admission-review.js';
import { pvcReview } from '../../../support/webhook/webhook-client.js';

it('a valid AdmissionReview v1 yields its request', () => {
  const parsed = parseAdmissionReview(pvcReview('u-1'));
  assert.isTrue(parsed.ok);
  if (!parsed.ok) return;
  assert.strictEqual(parsed.request.uid, 'u-1');
  assert.strictEqual(parsed.request.operation, 'UPDATE');
  assert.strictEqual(parsed.request.kind.kind, 'PersistentVolumeClaim');
  assert.strictEqual(parsed.request.resource.resource, 'persistentvolumeclaims');
  assert.strictEqual(parsed.request.namespace, 'default');
  assert.strictEqual(parsed.request.userInfo?.username, 'alice');
  assert.isFalse(parsed.request.dryRun);
  assert.deepStrictEqual(
    (parsed.request.object as { spec: { resources: unknown } }).spec.resources,
    {
      requests: { storage: '20Gi' },
    },
  );
});

it('optional fields may be absent; object and oldObject may be null', () => {
  const review = pvcReview('u-2');
  const request = review['request'] as Record<string, unknown>;
  for (const key of ['requestKind', 'name', 'namespace', 'userInfo', 'dryRun', 'subResource'])
    delete request[key];
  request['object'] = null;
  request['operation'] = 'DELETE';
  const parsed = parseAdmissionReview(review);
  assert.isTrue(parsed.ok);
  if (parsed.ok) {
    assert.isNull(parsed.request.object);
    assert.isFalse('name' in parsed.request);
  }
});

function mutate(
  change: (review: Record<string, unknown>, request: Record<string, unknown>) => void,
): unknown {
  const review = pvcReview('u-3');
  change(review, review['request'] as Record<string, unknown>);
  return review;
}

const invalid: Array<[string, unknown, RegExp]> = [
  ['not an object', 'hello', /JSON object/],
  ['null', null, /JSON object/],
  ['an array', [pvcReview('x')], /got an array/],
  [
    'v1beta1',
    mutate((r) => {
      r['apiVersion'] = 'admission.k8s.io/v1beta1';
    }),
    /apiVersion must be "admission.k8s.io\/v1".*v1beta1/,
  ],
  [
    'no apiVersion',
    mutate((r) => {
      delete r['apiVersion'];
    }),
    /apiVersion.*got nothing/,
  ],
  [
    'wrong kind',
    mutate((r) => {
      r['kind'] = 'Pod';
    }),
    /kind must be "AdmissionReview"/,
  ],
  [
    'no request',
    mutate((r) => {
      delete r['request'];
    }),
    /request must be an object, got nothing/,
  ],
  [
    'request is a string',
    mutate((r) => {
      r['request'] = 'x';
    }),
    /request must be an object, got a string/,
  ],
  [
    'no uid',
    mutate((_r, q) => {
      delete q['uid'];
    }),
    /request.uid must be a non-empty string/,
  ],
  [
    'empty uid',
    mutate((_r, q) => {
      q['uid'] = '';
    }),
    /request.uid/,
  ],
  [
    'numeric uid',
    mutate((_r, q) => {
      q['uid'] = 7;
    }),
    /request.uid/,
  ],
  [
    'no kind',
    mutate((_r, q) => {
      delete q['kind'];
    }),
    /request.kind must be an object/,
  ],
  [
    'kind.kind missing',
    mutate((_r, q) => {
      q['kind'] = { group: '', version: 'v1' };
    }),
    /request.kind.kind must be a string, got nothing$/,
  ],
  [
    'resource.version empty',
    mutate((_r, q) => {
      q['resource'] = { group: '', version: '', resource: 'pvc' };
    }),
    /must not be empty/,
  ],
  [
    'bad operation',
    mutate((_r, q) => {
      q['operation'] = 'PATCH';
    }),
    /request.operation must be one of/,
  ],
  [
    'object is an array',
    mutate((_r, q) => {
      q['object'] = [];
    }),
    /request.object must be an object or null/,
  ],
  [
    'oldObject is a number',
    mutate((_r, q) => {
      q['oldObject'] = 1;
    }),
    /request.oldObject/,
  ],
  [
    'namespace not a string',
    mutate((_r, q) => {
      q['namespace'] = {};
    }),
    /request.namespace must be a string/,
  ],
  [
    'groups not strings',
    mutate((_r, q) => {
      q['userInfo'] = { username: 'a', groups: [1] };
    }),
    /groups must be an array of strings/,
  ],
  [
    'dryRun a string',
    mutate((_r, q) => {
      q['dryRun'] = 'true';
    }),
    /request.dryRun must be a boolean/,
  ],
];

for (const [name, body, message] of invalid) {
  it(`refuses ${name} with a clear message`, () => {
    const parsed = parseAdmissionReview(body);
    assert.isFalse(parsed.ok);
    if (!parsed.ok) assert.match(parsed.message, message);
  });
}
