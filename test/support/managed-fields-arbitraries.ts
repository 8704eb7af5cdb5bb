import fc from 'fast-check';

/** Any string: control characters, quotes, backslashes, non-ASCII and lone surrogates included. */
const anyString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    'k:{"name":"x"}',
    'f:pv.kubernetes.io/bind-completed',
    '.',
    'a\\b"c',
    '\u0000\u001f',
    '\ud800',
    'é✓😀',
  ),
);

/** JSON values made of objects, arrays and strings only, as managedFields are. */
export const structuredJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A managedFields entry as the API server writes one. */
const managedFieldsEntry = fc.record(
  {
    manager: fc.constantFrom('harvester', 'kube-controller-manager', 'csi-resizer', 'kubectl-edit'),
    operation: fc.constantFrom('Update', 'Apply'),
    apiVersion: fc.constant('v1'),
    time: fc.constant('2026-11-20T08:15:42Z'),
    fieldsType: fc.constant('FieldsV1'),
    fieldsV1: fc.dictionary(anyString, structuredJson, { maxKeys: 3 }),
    subresource: fc.constantFrom('status', 'resize'),
  },
  { requiredKeys: ['manager', 'operation', 'apiVersion', 'fieldsType', 'fieldsV1'] },
);

/** Objects with managedFields (and other keys around them), as an AdmissionReview carries them. */
const objectWithManagedFields = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('PersistentVolumeClaim'),
  metadata: fc.record(
    {
      name: anyString,
      annotations: fc.dictionary(anyString, anyString, { maxKeys: 3 }),
      managedFields: fc.array(managedFieldsEntry, { maxLength: 4 }),
      labels: fc.dictionary(anyString, anyString, { maxKeys: 2 }),
    },
    { requiredKeys: ['managedFields'] },
  ),
  spec: fc.record({
    resources: fc.record({ requests: fc.record({ storage: fc.constantFrom('10Gi', '20Gi') }) }),
  }),
});

/** An AdmissionReview whose object and oldObject carry managedFields, as JSON text. */
export const reviewWithManagedFields = fc
  .record({
    apiVersion: fc.constant('admission.k8s.io/v1'),
    kind: fc.constant('AdmissionReview'),
    request: fc.record({
      uid: anyString,
      operation: fc.constant('UPDATE'),
      object: objectWithManagedFields,
      oldObject: objectWithManagedFields,
    }),
  })
  .map((review) => JSON.stringify(review));

/** Pieces that, inserted anywhere, break or bend JSON around a managedFields list. */
const pieces = [
  '"',
  '\\',
  ',',
  ':',
  '{',
  '}',
  '[',
  ']',
  ' ',
  '\x01',
  '1',
  'null',
  '\u00e9',
  '\\u',
  '"managedFields":[',
  'Fields":[',
  ',"managed',
  '"a":',
];

/** The text with one to four edits: some bytes removed and a piece inserted at the same place. */
export function mutatedText(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      text,
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...pieces)), {
        minLength: 1,
        maxLength: 4,
      }),
    )
    .map(([source, edits]) =>
      edits.reduce((out, [at, removed, inserted]) => {
        const i = at % (out.length + 1);
        return out.slice(0, i) + inserted + out.slice(i + removed);
      }, source),
    );
}
