import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonWithoutManagedFields } from '../../../src/webhook/json-without-managed-fields.js';
import { mutatedText, reviewWithManagedFields } from '../../support/managed-fields-arbitraries.js';

/** As the server gets it: bytes (a lone surrogate of a generated string is sent as U+FFFD). */
function sent(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function without(text: string): string {
  const body = Buffer.from(text, 'utf8');
  return jsonWithoutManagedFields(body, body.length);
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** `full` with each managedFields value that is [] in `stripped` set to [] too (where the two differ only there, they are then equal). */
function emptiedAsIn(full: unknown, stripped: unknown): unknown {
  if (Array.isArray(full) && Array.isArray(stripped))
    return full.map((item, i) => emptiedAsIn(item, stripped[i]));
  if (
    typeof full !== 'object' ||
    full === null ||
    typeof stripped !== 'object' ||
    stripped === null ||
    Array.isArray(stripped)
  )
    return full;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(full)) {
    const other = (stripped as Record<string, unknown>)[key];
    // Defined, not assigned: a key "__proto__" is an own property of what JSON.parse gives.
    Object.defineProperty(out, key, {
      value:
        key === 'managedFields' && Array.isArray(other) && other.length === 0
          ? []
          : emptiedAsIn(value, other),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

const managed =
  '[{"manager":"csi-resizer","operation":"Update","apiVersion":"v1","time":"2026-11-20T08:15:42Z","fieldsType":"FieldsV1","subresource":"status","fieldsV1":{"f:status":{"f:allocatedResources":{".":{},"f:storage":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"x\\"}":{}}}}}]';
const review =
  `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","operation":"UPDATE",` +
  `"object":{"metadata":{"name":"é-pvc","annotations":{"a":"b"},"managedFields":${managed}},"spec":{"resources":{"requests":{"storage":"20Gi"}}}},` +
  `"oldObject":{"metadata":{"name":"é-pvc","managedFields":${managed},"labels":{}},"spec":{"resources":{"requests":{"storage":"10Gi"}}}}}}`;

test('every managedFields list of a review becomes [], and nothing else changes', () => {
  const text = without(review);
  assert.equal(text, review.replaceAll(managed, '[]'));
  const expected = JSON.parse(review) as {
    request: {
      object: { metadata: { managedFields: unknown } };
      oldObject: { metadata: { managedFields: unknown } };
    };
  };
  expected.request.object.metadata.managedFields = [];
  expected.request.oldObject.metadata.managedFields = [];
  assert.deepEqual(JSON.parse(text), expected);
});

test('a text without a list it may replace is returned whole', () => {
  const kept = [
    '{"managedFields":[1,2]}', // a list holding numbers: JSON.parse reads it
    '{"managedFields":[{"a":null}]}',
    '{"managedFields": []}', // spelled with a space: not how the API server writes it
    '{"a":"x\\"managedFields\\":[]"}', // inside a string
    '{"a":"x","b":"\\",\\"managedFields\\":[\\"y\\"]"}',
    '["managedFields":["x"]]', // not after ',' or '{'
    '{"xmanagedFields":["x"]}',
    '{"Fields":["x"]}',
    'Fields":["x"]}',
    '"managedFields":["x"]',
    '{"managedFields":["x"}',
    '{"managedFields":["\\x"]}',
    '{"managedFields":[',
    '',
    'not json',
  ];
  for (const text of kept) assert.equal(without(text), text, text);
  assert.equal(without('{"managedFields":["x"]}'), '{"managedFields":[]}');
  assert.equal(
    without('{"a":1,"managedFields":[{"b":{}}],"c":{"managedFields":["d"]}}'),
    '{"a":1,"managedFields":[],"c":{"managedFields":[]}}',
  );
});

test('reads only the first size bytes of the body', () => {
  const text = '{"managedFields":["x"]}';
  const body = Buffer.alloc(64, ' ');
  body.write(text);
  body.write(',"managedFields":["y"]', text.length);
  assert.equal(jsonWithoutManagedFields(body, text.length), '{"managedFields":[]}');
  assert.equal(jsonWithoutManagedFields(body, text.length - 2), '{"managedFields":["x"');
});

test('a review parses as the whole text does, but for its managedFields lists (3,000 runs)', () => {
  fc.assert(
    fc.property(reviewWithManagedFields, (text) => {
      const value = JSON.parse(without(text)) as {
        request: { object: { metadata: { managedFields: unknown } } };
      };
      assert.deepEqual(value.request.object.metadata.managedFields, []);
      assert.deepEqual(emptiedAsIn(JSON.parse(sent(text)), value), value);
    }),
    { numRuns: 3_000 },
  );
});

test('JSON.parse accepts the text without the lists exactly when it accepts the whole text (30,000 runs)', () => {
  fc.assert(
    fc.property(mutatedText(reviewWithManagedFields), (text) => {
      const whole = parsed(sent(text));
      const stripped = parsed(without(text));
      assert.equal(stripped.ok, whole.ok, text);
      if (whole.ok && stripped.ok)
        assert.deepEqual(emptiedAsIn(whole.value, stripped.value), stripped.value);
    }),
    { numRuns: 30_000 },
  );
});
