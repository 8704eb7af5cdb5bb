import fc from 'fast-check';

/** Generators for the AdmissionReview fuzz tests: valid reviews, mutated ones and garbage. */
const gvk = fc.record({
  group: fc.constantFrom('', 'kubevirt.io', 'harvesterhci.io'),
  version: fc.constantFrom('v1', 'v1beta1'),
  kind: fc.constantFrom('PersistentVolumeClaim', 'VirtualMachine', 'Setting'),
});
const gvr = fc.record({
  group: fc.constantFrom('', 'kubevirt.io'),
  version: fc.constantFrom('v1'),
  resource: fc.constantFrom('persistentvolumeclaims', 'virtualmachines', 'settings'),
});

const quantity = fc.oneof(
  fc.constantFrom('10Gi', '20Gi', '1Ti', '512Mi', '0', '-1Gi', '1e3', ''),
  fc.string(),
);
const pvcLike = fc.record(
  {
    apiVersion: fc.constant('v1'),
    kind: fc.constant('PersistentVolumeClaim'),
    metadata: fc.record(
      {
        name: fc.string(),
        namespace: fc.string(),
        annotations: fc.dictionary(fc.string(), fc.string(), { maxKeys: 4 }),
      },
      { requiredKeys: [] },
    ),
    spec: fc.record(
      {
        resources: fc.record(
          { requests: fc.record({ storage: quantity }, { requiredKeys: [] }) },
          { requiredKeys: [] },
        ),
        volumeMode: fc.constantFrom('Filesystem', 'Block'),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['apiVersion', 'kind'] },
);
const anyObject = fc.oneof(pvcLike, fc.object({ maxDepth: 3 }), fc.constant(null));

export const validReview = fc.record({
  apiVersion: fc.constant('admission.k8s.io/v1'),
  kind: fc.constant('AdmissionReview'),
  request: fc.record(
    {
      uid: fc.string({ minLength: 1, maxLength: 64 }),
      kind: gvk,
      resource: gvr,
      subResource: fc.constantFrom('status', 'scale'),
      requestKind: gvk,
      name: fc.string(),
      namespace: fc.string(),
      operation: fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
      userInfo: fc.record(
        {
          username: fc.string(),
          uid: fc.string(),
          groups: fc.array(fc.string(), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
      object: anyObject,
      oldObject: anyObject,
      dryRun: fc.boolean(),
      options: fc.object({ maxDepth: 1 }),
    },
    { requiredKeys: ['uid', 'kind', 'resource', 'operation'] },
  ),
});

const path = fc.constantFrom<Array<string>>(
  [],
  ['apiVersion'],
  ['kind'],
  ['request'],
  ['request', 'uid'],
  ['request', 'kind'],
  ['request', 'kind', 'kind'],
  ['request', 'kind', 'group'],
  ['request', 'resource'],
  ['request', 'resource', 'version'],
  ['request', 'operation'],
  ['request', 'object'],
  ['request', 'oldObject'],
  ['request', 'userInfo'],
  ['request', 'userInfo', 'groups'],
  ['request', 'dryRun'],
  ['request', 'name'],
  ['request', 'namespace'],
  ['request', 'requestKind'],
  ['request', 'subResource'],
  ['request', 'object', 'spec'],
  ['request', 'object', 'metadata'],
);
const strangeValue = fc.oneof(
  fc.anything({ maxDepth: 2 }),
  fc.constant(undefined),
  fc.nat({ max: 300_000 }).map((n) => 'x'.repeat(n)),
  fc.constant([]),
  fc.constant({}),
);

function setPath(target: unknown, keys: string[], value: unknown, remove: boolean): unknown {
  if (keys.length === 0) return remove ? undefined : value;
  if (typeof target !== 'object' || target === null) return target;
  const [head, ...rest] = keys as [string, ...string[]];
  const copy: Record<string, unknown> = Array.isArray(target)
    ? { ...target }
    : { ...(target as Record<string, unknown>) };
  if (rest.length === 0) {
    if (remove) delete copy[head];
    else copy[head] = value;
  } else {
    copy[head] = setPath(copy[head], rest, value, remove);
  }
  return copy;
}

/** A valid review with one to three fields deleted or replaced by values of the wrong type. */
export const mutatedReview = fc
  .tuple(
    validReview,
    fc.array(fc.tuple(path, strangeValue, fc.boolean()), { minLength: 1, maxLength: 3 }),
  )
  .map(([review, edits]) =>
    edits.reduce<unknown>(
      (acc, [keys, value, remove]) => setPath(acc, keys, value, remove),
      review,
    ),
  );

/** Anything that is valid JSON, not necessarily an AdmissionReview. */
export const randomJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.object({ maxDepth: 3 }));

/** A request body: a value to encode as JSON, or raw text/bytes that are probably not JSON. */
export const requestBody = fc.oneof(
  { weight: 4, arbitrary: validReview.map((v) => ({ value: v as unknown })) },
  { weight: 4, arbitrary: mutatedReview.map((v) => ({ value: v })) },
  { weight: 2, arbitrary: randomJson.map((v) => ({ value: v as unknown })) },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 2000 }).map((raw) => ({ raw: raw as string | Uint8Array })),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 2000 })
      .map((raw) => ({ raw: raw as string | Uint8Array })),
  },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 400_000 }).map((n) => ({
      raw: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"${'u'.repeat(n)}"` as
        string | Uint8Array,
    })),
  },
);
